import Foundation
import Glibc
import PushLedgerKit
import TestSupport
import Testing

/// The SDK against the real `pushledger serve` and Postgres.
@Suite("PushLedgerKit with the server", .serialized)
struct ServerTests {
    @Test func everyEventTypeTheSDKEncodesIsAccepted() async throws {
        let server = try KitServer()
        let ledger = try PushLedger(
            configuration: KitFixtures.configuration(endpoint: server.baseURL, key: server.telemetryKey))
        let ids = try KitFixtures.everyEventType().map { try ledger.record($0) }
        let result = try await ledger.flush()
        #expect(result.accepted == 6 && result.duplicates == 0 && result.rejected.isEmpty, "\(result)")
        #expect(
            try server.storedEventIDs() == Dictionary(uniqueKeysWithValues: ids.map { ($0.uuidString.lowercased(), 1) })
        )
        let version = try server.connect().query(
            """
            select app_version, platform from installations where installation_id = \
            \(ledger.installationID.uuidString.lowercased())::uuid
            """
        )
        #expect(try version.first?.decode(0, as: String.self) == "2.1.0")
    }

    @Test func aRevokedKeyKeepsTheEventsAndANewKeyDeliversThem() async throws {
        let server = try KitServer()
        let directory = KitFixtures.directory()
        let wrong = try PushLedger(
            configuration: KitFixtures.configuration(endpoint: server.baseURL, key: "plk_unknown", directory: directory)
        )
        try wrong.record(.experimentExposure(experiment: "push_prompt_timing", variant: "first_screen"))
        await #expect(
            throws: PushLedgerError.flushIncomplete(
                remaining: 1, reason: .unauthorized(status: 401, code: "unauthorized"), partial: FlushResult())
        ) {
            try await wrong.flush()
        }
        let right = try PushLedger(
            configuration: KitFixtures.configuration(
                endpoint: server.baseURL, key: server.telemetryKey, directory: directory))
        #expect(try await right.flush().accepted == 1)
    }

    /// Three writer processes and two flushers (this process and a probe) on one directory;
    /// one writer SIGKILLed mid-way. Every event whose `record` returned is stored exactly once.
    @Test func writersAndFlushersInSeveralProcessesStoreEachEventOnce() async throws {
        let server = try KitServer()
        let directory = KitFixtures.directory()
        // The first writer is paced (2 ms between records), so it is still recording when it is
        // killed, at whatever point of a record the signal lands.
        let writers = try (0..<3).map { n in
            try ProbeRun(
                ["record", "--dir", directory.path, "--app", KitFixtures.app, "--count", "300"]
                    + (n == 0 ? ["--interval", "2"] : []))
        }
        let ledger = try PushLedger(
            configuration: KitFixtures.configuration(
                endpoint: server.baseURL, key: server.telemetryKey, directory: directory))
        var flushes = 0
        // The kill is watched on its own thread, apart from the flushes: a flush round can outlast a
        // writer's 300 records, and the cooperative pool can be held by other tests' blocking waits.
        let killer = Background { () -> Bool in
            while writers[0].process.isRunning {
                if writers[0].recorded.count >= 40 {
                    writers[0].kill()
                    return true
                }
                usleep(1_000)
            }
            return false
        }
        while writers.contains(where: { $0.process.isRunning }) {
            let other = try ProbeRun(
                [
                    "flush", "--dir", directory.path, "--app", KitFixtures.app, "--endpoint", server.baseURL, "--key",
                    server.telemetryKey,
                ])
            _ = try await ledger.flush()
            other.wait()
            flushes += 1
        }
        for writer in writers { writer.wait() }
        let killed = try killer.value()
        _ = try await ledger.flush()
        let recorded = writers.flatMap(\.recorded)
        let stored = try server.storedEventIDs()
        #expect(killed && writers[0].recorded.count < 300, "the writer was killed mid-way")
        #expect(writers[1].recorded.count == 300 && writers[2].recorded.count == 300)
        #expect(recorded.allSatisfy { stored[$0] == 1 }, "every returned record is stored exactly once")
        #expect(stored.values.allSatisfy { $0 == 1 })
        // At most the one event the killed writer journalled without getting to print it.
        #expect(stored.count - recorded.count <= 1)
        #expect(ledger.pendingCount == 0)
        #expect(flushes >= 1)
    }
}
