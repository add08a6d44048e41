import Foundation
import Gzip
import HTTPClient
import TestSupport
import Testing

@Suite("HTTPClient against a loopback server")
struct HTTPClientTests {
    final class Sleeps: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Double] = []
        func record(_ s: Double) { lock.withLock { values.append(s) } }
        var all: [Double] { lock.withLock { values } }
    }

    private func client(_ server: LoopbackServer, timeout: Double = 5) throws -> (HTTPClient, Sleeps) {
        let client = try HTTPClient(baseURL: server.url + "/", timeout: timeout)
        let sleeps = Sleeps()
        client.sleep = { sleeps.record($0) }
        return (client, sleeps)
    }

    @Test func keepAliveReusesOneConnectionAndSendsHeaders() throws {
        let server = try LoopbackServer { _, n in .status(200, "{\"n\":\(n)}") }
        defer { server.stop() }
        let (client, _) = try client(server)
        for i in 0..<3 {
            let response = try client.post(
                path: "/v1/sends", body: Array("line \(i)\n".utf8), contentType: "application/x-ndjson", bearer: "k1")
            #expect(response.status == 200)
            #expect(response.bodyText == "{\"n\":\(i)}")
        }
        #expect(server.connectionCount == 1)
        let seen = server.seen
        #expect(seen.map(\.path) == ["/v1/sends", "/v1/sends", "/v1/sends"])
        #expect(seen[2].body == Array("line 2\n".utf8))
        #expect(seen[0].headers["authorization"] == "Bearer k1")
        #expect(seen[0].headers["content-type"] == "application/x-ndjson")
        #expect(seen[0].headers["content-encoding"] == nil)
    }

    @Test func gzipBodiesDecompressToTheOriginal() throws {
        let server = try LoopbackServer { _, _ in .status(200) }
        defer { server.stop() }
        let (client, _) = try client(server)
        let body = Array(String(repeating: "{\"event\":1}", count: 500).utf8)
        _ = try client.post(path: "/v1/telemetry", body: body, contentType: "application/json", gzip: true)
        let seen = try #require(server.seen.first)
        #expect(seen.headers["content-encoding"] == "gzip")
        #expect(seen.body.count < body.count)
        #expect(try Gzip.decompress(seen.body, limit: 1 << 20) == body)
    }

    @Test func aBodyGzippedAheadIsSentAsItIs() throws {
        let server = try LoopbackServer { _, _ in .status(200) }
        defer { server.stop() }
        let (client, _) = try client(server)
        let body = Array(String(repeating: "{\"event\":2}", count: 300).utf8)
        let compressed = Gzip.compress(body)
        _ = try client.post(path: "/v1/sends", body: compressed, contentType: "application/json", bodyIsGzip: true)
        let seen = try #require(server.seen.first)
        #expect(seen.headers["content-encoding"] == "gzip")
        #expect(seen.body == compressed)  // not compressed a second time
        #expect(try Gzip.decompress(seen.body, limit: 1 << 20) == body)
    }

    @Test func retriesHonourRetryAfterThenBackOff() throws {
        let server = try LoopbackServer { _, n in
            switch n {
            case 0: .status(503, headers: ["Retry-After: 2"])
            case 1: .status(429)
            default: .status(200, "{\"accepted\":1}")
            }
        }
        defer { server.stop() }
        let (client, sleeps) = try client(server)
        var bodies = 0
        var retries: [Int] = []
        let response = try client.postWithRetry(
            path: "/v1/telemetry", contentType: "application/json", policy: RetryPolicy(maxAttempts: 5, baseDelay: 0.2),
            onRetry: { attempt, _ in retries.append(attempt) }
        ) {
            bodies += 1
            return Array("{\"try\":\(bodies)}".utf8)
        }
        #expect(response.status == 200)
        #expect(
            server.seen.map { String(decoding: $0.body, as: UTF8.self) } == [
                "{\"try\":1}", "{\"try\":2}", "{\"try\":3}",
            ])
        #expect(retries == [1, 2])
        let delays = sleeps.all
        #expect(delays.count == 2)
        #expect(delays[0] == 2)
        #expect(delays[1] >= 0.2 && delays[1] <= 0.4)
        #expect(server.connectionCount == 1)
    }

    @Test func attemptsAreBoundedAndTheLastAnswerReturned() throws {
        let server = try LoopbackServer { _, _ in .status(503, headers: ["Retry-After: 1"]) }
        defer { server.stop() }
        let (client, sleeps) = try client(server)
        let response = try client.postWithRetry(
            path: "/x", contentType: "application/json", policy: RetryPolicy(maxAttempts: 3)
        ) { [] }
        #expect(response.status == 503)
        #expect(server.seen.count == 3)
        #expect(sleeps.all == [1, 1])
    }

    @Test func otherStatusesAreNotRetried() throws {
        let server = try LoopbackServer { _, _ in .status(400, "{\"error\":\"invalid_envelope\"}") }
        defer { server.stop() }
        let (client, sleeps) = try client(server)
        let response = try client.postWithRetry(path: "/x", contentType: "application/json") { [] }
        #expect(response.status == 400 && server.seen.count == 1 && sleeps.all.isEmpty)
    }

    @Test func reconnectsAfterServerClosesTheConnection() throws {
        // first answer announces the close, the second closes silently (a stale keep-alive)
        let server = try LoopbackServer { _, n in
            n == 0 ? .status(200, headers: ["Connection: close"], close: true) : .status(200, "ok", close: n == 1)
        }
        defer { server.stop() }
        let (client, _) = try client(server)
        for _ in 0..<3 {
            #expect(try client.post(path: "/x", body: [1], contentType: "application/json").status == 200)
        }
        #expect(server.seen.count == 3)
        #expect(server.connectionCount == 3)
    }

    @Test func readsChunkedBodies() throws {
        let chunked =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n"
        let server = try LoopbackServer { _, _ in LoopbackServer.Reply(bytes: Array(chunked.utf8)) }
        defer { server.stop() }
        let (client, _) = try client(server)
        let first = try client.post(path: "/x", body: [], contentType: "application/json")
        #expect(first.bodyText == "hello world")
        #expect(first.header("transfer-encoding") == "chunked")
        #expect(try client.post(path: "/x", body: [], contentType: "application/json").bodyText == "hello world")
        #expect(server.connectionCount == 1)
    }

    @Test func networkErrorsAreRetriedThenThrown() throws {
        try LoopbackServer.withRefusingPort { port in
            let client = try HTTPClient(baseURL: "http://127.0.0.1:\(port)", timeout: 2)
            let sleeps = Sleeps()
            client.sleep = { sleeps.record($0) }
            let error = try #require(throws: HTTPClientError.self) {
                try client.postWithRetry(
                    path: "/x", contentType: "application/json", policy: RetryPolicy(maxAttempts: 3)
                ) { [] }
            }
            #expect(error.kind == .connect)
            #expect(error.description == "ingest client: cannot connect")
            #expect(sleeps.all.count == 2)
        }
    }

    @Test func silentServerTimesOut() throws {
        let server = try LoopbackServer { _, _ in LoopbackServer.Reply(bytes: [], hang: true) }
        defer { server.stop() }
        let client = try HTTPClient(baseURL: server.url, timeout: 0.3, connectTimeout: 30)
        let error = try #require(throws: HTTPClientError.self) {
            try client.post(path: "/x", body: [], contentType: "application/json")
        }
        #expect(error.kind == .timeout)
    }

    @Test func malformedResponsesAreReported() throws {
        let server = try LoopbackServer { _, _ in
            LoopbackServer.Reply(bytes: Array("SMTP ready\r\n\r\n".utf8), close: true)
        }
        defer { server.stop() }
        let (client, _) = try client(server)
        let error = try #require(throws: HTTPClientError.self) {
            try client.post(path: "/x", body: [], contentType: "application/json")
        }
        #expect(error.kind == .malformedResponse)
    }

    @Test func bodyCutShortIsAnIOError() throws {
        let server = try LoopbackServer { _, _ in
            LoopbackServer.Reply(bytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".utf8), close: true)
        }
        defer { server.stop() }
        let (client, _) = try client(server)
        let error = try #require(throws: HTTPClientError.self) {
            try client.post(path: "/x", body: [], contentType: "application/json")
        }
        #expect(error.kind == .io && error.isRetryable)
    }

    @Test(arguments: ["https://", "http://", "http://host:0", "http://host:99999", "http://[::1", "ftp://x"])
    func invalidURLs(url: String) {
        #expect(throws: HTTPClientError.self) { try HTTPClient(baseURL: url) }
    }

    @Test func urlParts() throws {
        let client = try HTTPClient(baseURL: "http://[::1]:9090/ingest/")
        #expect(client.host == "::1" && client.port == 9090 && client.basePath == "/ingest")
        let plain = try HTTPClient(baseURL: "http://localhost")
        #expect(plain.port == 80 && plain.basePath == "")
    }

    @Test func backoffDoublesWithJitterAndCaps() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: 0.5, maxDelay: 4, maxRetryAfter: 30)
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil, random: 0) == 0.25)
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil, random: 1) == 0.5)
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 1) == 2)
        #expect(policy.delay(afterAttempt: 9, retryAfter: nil, random: 1) == 4)
        #expect(policy.delay(afterAttempt: 2, retryAfter: " 7 ", random: 0.3) == 7)
        #expect(policy.delay(afterAttempt: 2, retryAfter: "120", random: 0.3) == 30)
        // an HTTP-date Retry-After is not understood: back off as usual
        #expect(policy.delay(afterAttempt: 2, retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT", random: 0) == 0.5)
    }
}
