import Foundation
import Gzip
import TestSupport
import Testing

@testable import IngestServer

/// Every status of docs/contract.md over real HTTP, each refused as early as the contract allows.
@Suite("Contract statuses over HTTP")
struct ContractStatusTests {
    let harness: Harness

    init() throws {
        harness = try Harness()
    }

    @Test func acceptsTelemetryAndCountsDuplicates() throws {
        let events = (0..<3).map { _ in Fixtures.exposure() }
        let first = try harness.telemetry(Fixtures.telemetry(events: events))
        #expect(first.status == 200)
        #expect(first.header("Content-Type") == "application/json")
        #expect(first.accepted == 3 && first.duplicates == 0 && first.rejected.isEmpty)
        let again = try harness.telemetry(Fixtures.telemetry(events: events + [Fixtures.exposure()]))
        #expect(again.accepted == 1 && again.duplicates == 3)
    }

    @Test func reportsRejectedEventsAndStoresTheRest() throws {
        var unknown = Fixtures.exposure()
        unknown["type"] = "app_crashed"
        let reply = try harness.telemetry(Fixtures.telemetry(events: [Fixtures.exposure(), unknown]))
        #expect(reply.status == 200)
        #expect(reply.accepted == 1)
        #expect(reply.rejected.count == 1)
        #expect(reply.rejected.first?["index"] as? Int == 1)
        #expect(reply.rejected.first?["error"] as? String == "unknown_type")
        #expect(reply.rejected.first?["event_id"] as? String == unknown["event_id"] as? String)
    }

    @Test func acceptsSendsAsJSONAndNDJSON() throws {
        let json = try harness.sends(Fixtures.sends([Fixtures.send(), Fixtures.send()]))
        #expect(json.status == 200 && json.accepted == 2)
        let lines = try harness.sends(
            Fixtures.ndjson([Fixtures.send(), Fixtures.send(), Fixtures.send(app: Fixtures.otherApp)]), ndjson: true)
        #expect(lines.status == 200 && lines.accepted == 2)
        #expect(lines.rejected.first?["error"] as? String == "app_mismatch")
    }

    @Test func acceptsGzipBodies() throws {
        let reply = try harness.post("/v1/telemetry", Fixtures.telemetry(count: 5), gzip: true)
        #expect(reply.status == 200 && reply.accepted == 5)
        let lines = try harness.post(
            "/v1/sends", Fixtures.ndjson([Fixtures.send(), Fixtures.send()]), key: TestKeys.sends,
            type: "application/x-ndjson", gzip: true)
        #expect(lines.status == 200 && lines.accepted == 2)
    }

    @Test func badJSONIs400AndKeptInTheFailedEventStore() throws {
        let reply = try harness.telemetry(Array("{\"app_id\": ".utf8))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_json")
        #expect(reply.json?["message"] is String)
        let stored = try harness.count(
            """
            select count(*)::int8 from failed_events
             where app_id = \(Fixtures.app) and endpoint = '/v1/telemetry' and error_code = 'invalid_json' and \
            raw_json = '{"app_id": '
            """)
        #expect(stored == 1)
    }

    @Test func gzipBodiesRefusedAsAWholeAreKeptDecompressed() throws {
        let reply = try harness.post("/v1/telemetry", Array("[1, 2".utf8), gzip: true)
        #expect(reply.status == 400)
        #expect(try harness.count("select count(*)::int8 from failed_events where raw_json = '[1, 2'") == 1)
        let corrupt = try harness.post(
            "/v1/telemetry", Array(Gzip.compress(Array("{}".utf8)).dropLast(4)), extra: [("Content-Encoding", "gzip")])
        #expect(corrupt.status == 400 && corrupt.errorCode == "invalid_gzip")
        #expect(
            try harness.count(
                "select count(*)::int8 from failed_events where error_code = 'invalid_gzip' and raw_json = ''") == 1)
    }

    @Test func invalidEnvelopeIs400() throws {
        let reply = try harness.telemetry(Fixtures.json(["app_id": Fixtures.app, "platform": "android", "events": []]))
        #expect(reply.status == 400)
    }

    @Test func truncatedGzipIs400() throws {
        let packed = Gzip.compress(Fixtures.telemetry(count: 50))
        let reply = try harness.request(
            "POST", "/v1/telemetry",
            headers: [
                ("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                ("Authorization", "Bearer \(TestKeys.telemetry)"),
            ],
            body: Array(packed.prefix(packed.count / 2)))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_gzip")
    }

    @Test func notGzipAtAllIs400() throws {
        let reply = try harness.request(
            "POST", "/v1/telemetry",
            headers: [
                ("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                ("Authorization", "Bearer \(TestKeys.telemetry)"),
            ],
            body: Fixtures.telemetry(count: 1))
        #expect(reply.status == 400)
    }

    @Test func gzipBombIs413() throws {
        // 9 MiB of spaces compresses to a few KiB: under the 1 MiB as sent, over the 8 MiB decompressed.
        let bomb = Gzip.compress([UInt8](repeating: 32, count: 9 << 20))
        #expect(bomb.count < 64 << 10)
        let reply = try harness.request(
            "POST", "/v1/telemetry",
            headers: [
                ("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                ("Authorization", "Bearer \(TestKeys.telemetry)"),
            ],
            body: bomb)
        #expect(reply.status == 413)
        #expect(reply.errorCode == "decompressed_too_large")
    }

    @Test func tooManyEventsIs413() throws {
        let reply = try harness.telemetry(Fixtures.telemetry(count: 2_001))
        #expect(reply.status == 413)
        #expect(reply.errorCode == "too_many_events")
    }

    @Test func declaredBodyOverOneMiBIs413BeforeTheBodyIsSent() throws {
        let reply = try harness.announce("/v1/telemetry", key: TestKeys.telemetry, contentLength: (1 << 20) + 1)
        #expect(reply.status == 413)
        #expect(reply.errorCode == "body_too_large")
    }

    @Test func bodyOfExactlyOneMiBIsRead() throws {
        // Padding inside a JSON string keeps the body valid; the limit is inclusive.
        var body = Fixtures.telemetry(count: 1)
        let padding = (1 << 20) - body.count - 9
        body =
            Array(String(decoding: body.dropLast(), as: UTF8.self).utf8)
            + Array(",\"pad\":\"\(String(repeating: "x", count: padding))\"}".utf8)
        #expect(body.count == 1 << 20)
        #expect(try harness.telemetry(body).status == 200)
    }

    @Test func chunkedBodyOverOneMiBIs413() throws {
        let connection = try harness.connect()
        connection.write(
            RawRequest.chunkedHead(
                "/v1/telemetry",
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(TestKeys.telemetry)")]))
        for _ in 0..<17 { connection.write(RawRequest.chunk([UInt8](repeating: 32, count: 64 << 10))) }
        connection.write(RawRequest.lastChunk)
        let reply = try connection.readReply()
        #expect(reply.status == 413)
    }

    @Test(arguments: [
        ("text/plain", "/v1/telemetry"), ("application/x-ndjson", "/v1/telemetry"), ("application/xml", "/v1/sends"),
    ])
    func unsupportedContentTypeIs415BeforeTheBody(type: String, path: String) throws {
        let key = path == "/v1/sends" ? TestKeys.sends : TestKeys.telemetry
        let reply = try harness.announce(path, key: key, type: type, contentLength: 100)
        #expect(reply.status == 415)
        #expect(reply.errorCode == "unsupported_media_type")
    }

    @Test func missingContentTypeIs415() throws {
        let reply = try harness.request(
            "POST", "/v1/telemetry", headers: [("Authorization", "Bearer \(TestKeys.telemetry)")],
            body: Fixtures.telemetry(count: 1))
        #expect(reply.status == 415)
    }

    @Test func unsupportedEncodingIs415() throws {
        let reply = try harness.post("/v1/telemetry", Fixtures.telemetry(count: 1), extra: [("Content-Encoding", "br")])
        #expect(reply.status == 415)
        #expect(reply.errorCode == "unsupported_encoding")
    }

    @Test func contentTypeParametersAreAccepted() throws {
        let reply = try harness.post(
            "/v1/telemetry", Fixtures.telemetry(count: 1), type: "Application/JSON; charset=utf-8")
        #expect(reply.status == 200)
    }

    @Test func unknownPathIs404() throws {
        let reply = try harness.get("/v2/telemetry")
        #expect(reply.status == 404)
        #expect(reply.errorCode == "not_found")
    }

    @Test(arguments: [
        ("GET", "/v1/telemetry", "POST, OPTIONS"), ("PUT", "/v1/sends", "POST"), ("POST", "/healthz", "GET, HEAD"),
        ("DELETE", "/metrics", "GET, HEAD"),
    ])
    func wrongMethodIs405WithAllow(method: String, path: String, allow: String) throws {
        let reply = try harness.request(method, path)
        #expect(reply.status == 405)
        #expect(reply.header("Allow") == allow)
    }

    /// The browser SDK posts from a page's origin: a preflight is answered without a key, and
    /// every telemetry answer, refusals included, lets the page read it and its Retry-After.
    @Test func telemetryAnswersCORSAndSendsDoNot() throws {
        let preflight = try harness.request(
            "OPTIONS", "/v1/telemetry",
            headers: [
                ("Origin", "https://shop.example.com"), ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "authorization, content-type, content-encoding"),
            ])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "*")
        #expect(preflight.header("Access-Control-Allow-Methods") == "POST")
        #expect(preflight.header("Access-Control-Allow-Headers") == "Authorization, Content-Type, Content-Encoding")
        let stored = try harness.telemetry(Fixtures.telemetry(count: 1))
        #expect(stored.status == 200 && stored.header("Access-Control-Allow-Origin") == "*")
        #expect(stored.header("Access-Control-Expose-Headers") == "Retry-After")
        let refused = try harness.request("POST", "/v1/telemetry", headers: [("Content-Type", "application/json")])
        #expect(refused.status == 401 && refused.header("Access-Control-Allow-Origin") == "*")
        let sends = try harness.sends(Fixtures.sends([Fixtures.send()]))
        #expect(sends.status == 200 && sends.header("Access-Control-Allow-Origin") == nil)
        #expect(try harness.request("OPTIONS", "/v1/sends").status == 405)
    }

    @Test(arguments: [nil, "Basic dXNlcjpwYXNz", "Bearer ", "Bearer pl_t_not-a-key", "Bearer \(TestKeys.revoked)"])
    func badKeysAre401(authorization: String?) throws {
        var headers = [("Content-Type", "application/json")]
        if let authorization { headers.append(("Authorization", authorization)) }
        let reply = try harness.request("POST", "/v1/telemetry", headers: headers, body: Fixtures.telemetry(count: 1))
        #expect(reply.status == 401)
        #expect(reply.errorCode == "unauthorized")
    }

    @Test func wrongScopeIs403() throws {
        let telemetryWithSendsKey = try harness.post("/v1/telemetry", Fixtures.telemetry(count: 1), key: TestKeys.sends)
        #expect(telemetryWithSendsKey.status == 403)
        let sendsWithTelemetryKey = try harness.post(
            "/v1/sends", Fixtures.sends([Fixtures.send()]), key: TestKeys.telemetry)
        #expect(sendsWithTelemetryKey.status == 403)
    }

    @Test func telemetryOfAnotherAppIs403() throws {
        let reply = try harness.telemetry(Fixtures.telemetry(count: 1), key: TestKeys.otherApp)
        #expect(reply.status == 403)
        #expect(reply.errorCode == "app_mismatch")
        #expect(try harness.storedCount == 0)
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let connection = try harness.connect()
        for _ in 0..<3 {
            connection.write(
                RawRequest.make(
                    "POST", "/v1/telemetry",
                    headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(TestKeys.telemetry)")],
                    body: Fixtures.telemetry(count: 2)))
            #expect(try connection.readReply().accepted == 2)
        }
    }
}
