import Foundation
import Synchronization
import Testing

@testable import Reports

#if canImport(Glibc)
    import Glibc
#endif

/// A one-thread HTTP/1.1 server on 127.0.0.1 that answers each request with the next status
/// of a script and keeps the bodies it received.
final class LoopbackWebhookServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let statuses: Mutex<[Int]>
    private let received: Mutex<[String]>

    init(statuses: [Int]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        self.statuses = Mutex(statuses)
        received = Mutex([])
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)/hooks/alerts" }
    var bodies: [String] { received.withLock { $0 } }

    /// Stops accepting: the serving thread's accept() fails, and it closes the socket (closing
    /// it here could let the thread accept on a reused descriptor of another test's server).
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    private func serve() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { close(listener); return }
            let body = readRequest(client)
            received.withLock { $0.append(body) }
            let status = statuses.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            let reply = "HTTP/1.1 \(status) Scripted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            _ = Array(reply.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(client)
        }
    }

    /// Reads the head, then exactly Content-Length body bytes.
    private func readRequest(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        while true {
            if let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) {
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if bytes.count >= end + 4 + length {
                    return String(decoding: bytes[(end + 4)..<(end + 4 + length)], as: UTF8.self)
                }
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return String(decoding: bytes, as: UTF8.self) }
            bytes += buffer[..<count]
        }
    }
}

/// A loopback port bound but not listening: connecting is refused, and no other test can
/// take the port while it lives.
final class DeadPort {
    let fd: Int32
    let port: UInt16

    init() throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketFD, $0, length) == 0 && getsockname(socketFD, $0, &length) == 0
            }
        }
        guard socketFD >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        fd = socketFD
        port = UInt16(bigEndian: address.sin_port)
    }

    var url: String { "http://127.0.0.1:\(port)/hooks/alerts" }

    deinit { close(fd) }
}

@Suite("Alert webhook")
struct AlertWebhookTests {
    static let transition = AlertTransition(
        id: 7, rule: "silent_loss_up", appID: "com.example.shop",
        slice: AlertSlice(["platform": "android", "channel": "promotions"]), state: .firing,
        at: Date(timeIntervalSince1970: 1_793_491_200), currentRate: 0.32, baselineRate: 0.03, currentVolume: 400,
        baselineVolume: 2800, deltaPoints: 29, pValue: 1e-40, message: "FIRING silent_loss_up com.example.shop …")

    static func webhook(_ url: String) throws -> AlertWebhook {
        try AlertWebhook(url: url, timeout: .seconds(5), attempts: 3, backoff: .milliseconds(10))
    }

    @Test("posts one JSON body per transition with Slack's text and the structured fields")
    func postsTransition() throws {
        let server = try LoopbackWebhookServer(statuses: [200])
        defer { server.stop() }
        let problems = try Self.webhook(server.url).post([Self.transition])
        #expect(problems.isEmpty)
        let body = try #require(server.bodies.first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(json["text"] as? String == Self.transition.message)
        #expect(json["rule"] as? String == "silent_loss_up")
        #expect(json["state"] as? String == "firing")
        #expect(json["app_id"] as? String == "com.example.shop")
        #expect(json["slice"] as? [String: String] == ["platform": "android", "channel": "promotions"])
        #expect(json["current_volume"] as? Int == 400)
        #expect(json["at"] as? String == "2026-11-01T00:00:00.000Z")
        #expect(json.keys.contains("p_value"))
    }

    @Test("retries a 503, then succeeds")
    func retriesServerErrors() throws {
        let server = try LoopbackWebhookServer(statuses: [503, 200])
        defer { server.stop() }
        #expect(try Self.webhook(server.url).post([Self.transition]).isEmpty)
        #expect(server.bodies.count == 2)
    }

    @Test("a 400 fails at once, without retries")
    func clientErrorIsNotRetried() throws {
        let server = try LoopbackWebhookServer(statuses: [400, 200])
        defer { server.stop() }
        let problems = try Self.webhook(server.url).post([Self.transition])
        #expect(problems.map(\.kind) == [.webhook])
        #expect(problems.first?.description.contains("HTTP 400") == true)
        #expect(server.bodies.count == 1)
    }

    @Test("a dead webhook is a failure after every attempt")
    func deadWebhookFails() throws {
        let dead = try DeadPort()
        let problems = try Self.webhook(dead.url).post([Self.transition, Self.transition])
        #expect(problems.count == 2)
        #expect(problems.allSatisfy { $0.kind == .webhook && $0.description.contains("cannot connect") })
        withExtendedLifetime(dead) {}
    }

    @Test("only http URLs are accepted", arguments: ["https://hooks.slack.com/x", "ftp://h/x", "not a url", "http://"])
    func rejectsOtherURLs(_ url: String) {
        #expect(throws: AlertError.self) { try AlertWebhook(url: url) }
    }

    @Test("a check posts its transitions; a dead webhook makes it trouble (exit 2) but keeps the state")
    func checkWithWebhook() throws {
        let fleet = try AlertCheckTests.channelBlockSpike()
        let checker = AlertChecker(rules: AlertCheckTests.deliveryRules)
        let server = try LoopbackWebhookServer(statuses: [])
        defer { server.stop() }
        let outcome = checker.run(connection: fleet.connection, at: AlertFleet.day(10), webhook: try Self.webhook(server.url))
        #expect(outcome.exitStatus == .firing)
        #expect(server.bodies.count == 2)
        #expect(server.bodies.allSatisfy { $0.contains("\"channel\":\"promotions\"") && $0.contains("\"text\":\"FIRING ") })
        // Nothing changed since: no post.
        let repeated = checker.run(connection: fleet.connection, at: AlertFleet.day(10), webhook: try Self.webhook(server.url))
        #expect(server.bodies.count == 2)
        #expect(repeated.exitStatus == .firing)

        let dead = try DeadPort()
        let resolved = checker.run(connection: fleet.connection, at: AlertFleet.day(12), webhook: try Self.webhook(dead.url))
        #expect(resolved.exitStatus == .trouble)
        #expect(resolved.result?.transitions.count == 2)
        #expect(resolved.problems.count == 2)
        withExtendedLifetime(dead) {}
    }
}
