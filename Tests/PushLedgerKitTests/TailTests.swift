import Foundation
import Glibc
import PushLedgerKit
import TestSupport
import Testing

/// `pushledger tail` over two ingestors writing to one database.
@Suite("pushledger tail", .serialized)
struct TailTests {
    @Test func tailShowsAcceptedAndRejectedEventsOfEveryIngestorWithinTwoSeconds() async throws {
        let server = try KitServer()
        let second = try ServeProcess(databaseURL: server.databaseURL)
        let tail = try ProbeRun(
            ["tail", "--app", KitFixtures.app, "--log-level", "warning"], executable: CommandRunner.executable,
            environment: [
                "DATABASE_URL": server.databaseURL,
                "PUSHLEDGER_SQL_DIR": TestDatabase.repositoryRoot.appendingPathComponent("sql").path,
            ])
        defer { tail.kill() }
        usleep(300_000)  // tail's first poll: it starts from now

        let viaFirst = try PushLedger(
            configuration: KitFixtures.configuration(endpoint: server.baseURL, key: server.telemetryKey))
        let receipt = try viaFirst.record(
            .notificationReceived(notificationID: UUID(), channel: "orders", displayed: true))
        _ = try await viaFirst.flush()
        #expect(
            Self.waitForLine(tail, within: 2) {
                $0.contains("accepted notification_received")
                    && $0.contains("id=\(receipt.uuidString.lowercased().prefix(8))")
            })

        let viaSecond = try PushLedger(
            configuration: KitFixtures.configuration(endpoint: second.baseURL, key: server.telemetryKey))
        let token = try viaSecond.record(.pushToken(provider: .apns, token: String(repeating: "ab", count: 32)))
        _ = try await viaSecond.flush()
        #expect(
            Self.waitForLine(tail, within: 2) {
                $0.contains("accepted push_token") && $0.contains("id=\(token.uuidString.lowercased().prefix(8))")
                    && $0.contains("abababab…")
            })
        #expect(
            !tail.lines.contains { $0.contains(String(repeating: "ab", count: 32)) }, "tokens are never shown in full")

        // An event the server rejects (its time is 40 days old), through the second ingestor.
        // (`record` refuses such an event, so it is posted as a hand-written client would.)
        let old = UUID()
        let reply = try RawHTTPConnection(port: second.port)
        reply.write(
            RawRequest.make(
                "POST", "/v1/telemetry",
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(server.telemetryKey)")],
                body: Fixtures.telemetry(events: [
                    Fixtures.exposure(id: old, at: Date(timeIntervalSinceNow: -40 * 86_400))
                ])))
        #expect(
            ((try reply.readReply().json?["rejected"] as? [[String: Any]])?.first?["error"] as? String) == "too_old")
        #expect(
            Self.waitForLine(tail, within: 2) {
                $0.contains("rejected experiment_exposure")
                    && $0.contains("id=\(old.uuidString.lowercased().prefix(8))") && $0.contains("error=too_old")
            })
        #expect(tail.lines.count == 3, "one line per event: \(tail.lines)")
    }

    @Test func tailFiltersByInstallationAndType() async throws {
        let server = try KitServer()
        let ledger = try PushLedger(
            configuration: KitFixtures.configuration(endpoint: server.baseURL, key: server.telemetryKey))
        let other = try PushLedger(
            configuration: KitFixtures.configuration(endpoint: server.baseURL, key: server.telemetryKey))
        for l in [ledger, other] {
            for event in KitFixtures.everyEventType() { try l.record(event) }
            _ = try await l.flush()
        }
        let tail = try ProbeRun(
            [
                "tail", "--app", KitFixtures.app, "--since", "10m", "--installation", ledger.installationID.uuidString,
                "--type", "permission_prompt",
                "--log-level", "warning",
            ],
            executable: CommandRunner.executable,
            environment: [
                "DATABASE_URL": server.databaseURL,
                "PUSHLEDGER_SQL_DIR": TestDatabase.repositoryRoot.appendingPathComponent("sql").path,
            ])
        defer { tail.kill() }
        #expect(
            Self.waitForLine(tail, within: 2) {
                $0.contains("permission_prompt") && $0.contains("after_first_order system granted")
            })
        usleep(700_000)  // another poll: nothing more may appear
        #expect(tail.lines.count == 1, "\(tail.lines)")
    }

    /// Polls the child's output until a line matches or `seconds` pass.
    static func waitForLine(_ run: ProbeRun, within seconds: Double, _ matches: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if run.lines.contains(where: matches) { return true }
            usleep(20_000)
        }
        return run.lines.contains(where: matches)
    }
}
