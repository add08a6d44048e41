import Foundation
import Glibc
import PushLedgerKit
import TestSupport
import Testing

/// A fleet of simulated apps records through the SDK core into the real server while it is
/// SIGKILLed and restarted mid-flush, and an extension process is SIGKILLed mid-way through
/// its receipts. Every event whose `record` returned is stored exactly once, and the
/// silent-loss report shows the outcomes those events imply.
@Suite("PushLedgerKit end to end", .serialized)
struct EndToEndTests {
    static let installations = 40
    static let notificationsPerInstallation = 4
    static let extensionNotifications = 120

    @Test func aFleetRecordsThroughRestartsAndKillsAndTheReportAddsUp() async throws {
        let server = try KitServer()
        let now = Date()
        func configuration(_ directory: URL) -> PushLedger.Configuration {
            var configuration = KitFixtures.configuration(
                endpoint: server.baseURL, key: server.telemetryKey, directory: directory)
            // Retries that outlast a server restart.
            configuration.retry = PushLedgerRetryPolicy(
                maxAttempts: 40, baseDelay: 0.05, maxDelay: 0.3, maxRetryAfter: 0.3)
            return configuration
        }
        // Each installation: a snapshot and a token; four sends, three received, one of them opened.
        var ledgers: [PushLedger] = []
        var sends: [[String: Any]] = []
        var returned: [UUID] = []
        for _ in 0..<Self.installations {
            let ledger = try PushLedger(configuration: configuration(KitFixtures.directory()))
            ledgers.append(ledger)
            returned.append(
                try ledger.record(
                    .notificationSettings(.init(authorizationStatus: .authorized)), at: now.addingTimeInterval(-7200)))
            returned.append(
                try ledger.record(
                    .pushToken(provider: .apns, token: Self.token(ledger)), at: now.addingTimeInterval(-7200)))
            for n in 0..<Self.notificationsPerInstallation {
                let notification = UUID()
                sends.append(Self.send(notification, ledger, at: now.addingTimeInterval(-3600)))
                guard n < 3 else { continue }
                returned.append(
                    try ledger.record(
                        .notificationReceived(notificationID: notification, channel: "orders", displayed: true),
                        at: now.addingTimeInterval(-3500)))
                if n == 0 {
                    returned.append(
                        try ledger.record(
                            .notificationOpened(notificationID: notification, action: "default", landed: .target),
                            at: now.addingTimeInterval(-3400)))
                }
            }
        }
        // The last installation's extension, in a process of its own, killed part-way through its receipts.
        let extensionDirectory = ledgers[ledgers.count - 1].configuration.storageDirectory
        let extensionNotifications = (0..<Self.extensionNotifications).map { _ in UUID() }
        sends += extensionNotifications.map {
            Self.send($0, ledgers[ledgers.count - 1], at: now.addingTimeInterval(-3600))
        }
        try Self.post(sends: sends, server)
        let receiptsFile = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-\(UUID()).txt")
        try extensionNotifications.map(\.uuidString).joined(separator: "\n").write(
            to: receiptsFile, atomically: true, encoding: .utf8)
        let extensionProcess = try ProbeRun([
            "record", "--dir", extensionDirectory.path, "--app", KitFixtures.app, "--receipts", receiptsFile.path,
        ])
        while extensionProcess.recorded.count < 30 && extensionProcess.process.isRunning { usleep(1_000) }
        extensionProcess.kill()
        extensionProcess.wait()

        // Flush the fleet; kill the server once the first events are in, restart it on the same port.
        let fleet = ledgers
        let flushing = Task {
            var incomplete = 0
            for ledger in fleet {
                do { _ = try await ledger.flush() } catch { incomplete += 1 }
            }
            return incomplete
        }
        var storedAtKill = 0
        while storedAtKill == 0 {
            storedAtKill = try server.storedEventIDs().count
            usleep(2_000)
        }
        try server.killAndRestart()
        _ = await flushing.value
        for ledger in ledgers { _ = try await ledger.flush() }  // whatever a flush that gave up left

        let stored = try server.storedEventIDs()
        let extensionRecorded = extensionProcess.recorded
        let total = returned.count + extensionRecorded.count
        #expect(extensionRecorded.count < Self.extensionNotifications, "the extension was killed mid-way")
        #expect(storedAtKill < total, "the server was killed while the fleet was flushing")
        #expect(returned.allSatisfy { stored[$0.uuidString.lowercased()] == 1 })
        #expect(extensionRecorded.allSatisfy { stored[$0] == 1 })
        #expect(stored.values.allSatisfy { $0 == 1 }, "nothing is stored twice")
        // The extension may have journalled one receipt it was killed before printing.
        #expect(stored.count - total <= 1)
        #expect(ledgers.allSatisfy { $0.pendingCount == 0 })

        // Outcomes: three of four fleet sends received (one opened), the fourth unconfirmed; the
        // extension's sends received for each receipt stored.
        let extensionReceived = stored.count - returned.count
        let row = try Self.silentLoss(server, from: now.addingTimeInterval(-86_400))
        let fleetSends = Self.installations * Self.notificationsPerInstallation
        PushLedgerLogger(component: "kit-e2e").info(
            "end-to-end figures",
            [
                "stored": stored.count, "returned": total, "stored_at_kill": storedAtKill,
                "extension_receipts": extensionRecorded.count,
                "received": "\(row["received"] ?? "-")", "opened": "\(row["opened"] ?? "-")",
                "unconfirmed": "\(row["unconfirmed"] ?? "-")",
            ])
        #expect(row["sends"] as? Int == fleetSends + Self.extensionNotifications, "\(row)")
        #expect(row["opened"] as? Int == Self.installations, "\(row)")
        #expect(row["received"] as? Int == 2 * Self.installations + extensionReceived, "\(row)")
        #expect(
            row["unconfirmed"] as? Int == Self.installations + Self.extensionNotifications - extensionReceived, "\(row)"
        )
    }

    static func token(_ ledger: PushLedger) -> String {
        (ledger.installationID.uuidString + ledger.installationID.uuidString).replacingOccurrences(of: "-", with: "")
            .lowercased()
    }

    static func send(_ notification: UUID, _ ledger: PushLedger, at: Date) -> [String: Any] {
        [
            "event_id": UUID().uuidString.lowercased(), "notification_id": notification.uuidString.lowercased(),
            "app_id": KitFixtures.app,
            "provider": "apns", "token": token(ledger),
            "installation_id": ledger.installationID.uuidString.lowercased(),
            "channel": "orders", "sent_at": RFC3339.format(at), "status": 200,
        ]
    }

    static func post(sends: [[String: Any]], _ server: KitServer) throws {
        let body = try JSONSerialization.data(withJSONObject: ["sends": sends])
        let connection = try RawHTTPConnection(port: server.serve.port)
        connection.write(
            RawRequest.make(
                "POST", "/v1/sends",
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(server.sendsKey)")],
                body: [UInt8](body)))
        let reply = try connection.readReply()
        #expect(reply.status == 200 && reply.json?["accepted"] as? Int == sends.count, "\(reply.text)")
    }

    /// The one row of `pushledger report silent-loss` over the window (confirmation window 1 minute).
    static func silentLoss(_ server: KitServer, from: Date) throws -> [String: Any] {
        let text = try KitServer.pushledger(
            [
                "report", "silent-loss", "--app", KitFixtures.app, "--from", RFC3339.format(from), "--window", "1m",
                "--format", "json",
            ], server.databaseURL)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]], "\(text)")
        return try #require(rows.first, "\(text)")
    }
}
