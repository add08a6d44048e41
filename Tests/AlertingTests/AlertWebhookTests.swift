import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Reports

/// The shared loopback server answering each request with the next status of a script (200 when
/// the script is spent), and the bodies it received.
private func webhookServer(statuses: [Int]) throws -> LoopbackServer {
    let script = Mutex(statuses)
    return try LoopbackServer { _, _ in
        .status(script.withLock { $0.isEmpty ? 200 : $0.removeFirst() }, "", close: true)
    }
}

extension LoopbackServer {
    fileprivate var hookURL: String { url + "/hooks/alerts" }
    fileprivate var bodies: [String] { seen.map { String(decoding: $0.body, as: UTF8.self) } }
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
        let server = try webhookServer(statuses: [200])
        defer { server.stop() }
        let problems = try Self.webhook(server.hookURL).post([Self.transition])
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
        let server = try webhookServer(statuses: [503, 200])
        defer { server.stop() }
        #expect(try Self.webhook(server.hookURL).post([Self.transition]).isEmpty)
        #expect(server.bodies.count == 2)
    }

    @Test("a 400 fails at once, without retries")
    func clientErrorIsNotRetried() throws {
        let server = try webhookServer(statuses: [400, 200])
        defer { server.stop() }
        let problems = try Self.webhook(server.hookURL).post([Self.transition])
        #expect(problems.map(\.kind) == [.webhook])
        #expect(problems.first?.description.contains("HTTP 400") == true)
        #expect(server.bodies.count == 1)
    }

    @Test("a dead webhook is a failure after every attempt")
    func deadWebhookFails() throws {
        let problems = try LoopbackServer.withRefusingPort { port in
            try Self.webhook("http://127.0.0.1:\(port)/hooks/alerts").post([Self.transition, Self.transition])
        }
        #expect(problems.count == 2)
        #expect(problems.allSatisfy { $0.kind == .webhook && $0.description.contains("cannot connect") })
    }

    @Test("only http URLs are accepted", arguments: ["https://hooks.slack.com/x", "ftp://h/x", "not a url", "http://"])
    func rejectsOtherURLs(_ url: String) {
        #expect(throws: AlertError.self) { try AlertWebhook(url: url) }
    }
}
