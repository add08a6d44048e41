import Foundation
import Glibc
import Postgres
import PushLedgerKit
import TestSupport
import Testing

/// `pushledger tail` over two ingestors writing to one database. "Within a second of its commit"
/// is told by the tail's own polls, seen on the database (each poll is one query): an event is
/// shown once two polls that began after its commit have run, however slowly a loaded machine
/// runs them; and the tail polls at least as often as a loop that sleeps a second between the
/// same queries, timed beside it.
@Suite("pushledger tail", .serialized)
struct TailTests {
    @Test func tailShowsAcceptedAndRejectedEventsOfEveryIngestorWithinASecond() async throws {
        let server = try KitServer()
        let second = try ServeProcess(databaseURL: server.databaseURL)
        let tail = try ProbeRun(
            ["tail", "--app", KitFixtures.app, "--log-level", "warning"], executable: CommandRunner.executable,
            environment: [
                "DATABASE_URL": server.databaseURL,
                "PUSHLEDGER_SQL_DIR": TestDatabase.repositoryRoot.appendingPathComponent("sql").path,
            ])
        defer { tail.kill() }
        let polls = try TailPolls(databaseURL: server.databaseURL)
        // Up and polling before the first event.
        #expect(polls.waitForPolls(after: try polls.now(), count: 1) != nil, "the tail never polled")

        let viaFirst = try PushLedger(
            configuration: KitFixtures.configuration(endpoint: server.baseURL, key: server.telemetryKey))
        let receipt = try viaFirst.record(
            .notificationReceived(notificationID: UUID(), channel: "orders", displayed: true))
        _ = try await viaFirst.flush()
        #expect(
            try polls.shown(tail) {
                $0.contains("accepted notification_received")
                    && $0.contains("id=\(receipt.uuidString.lowercased().prefix(8))")
            })

        let viaSecond = try PushLedger(
            configuration: KitFixtures.configuration(endpoint: second.baseURL, key: server.telemetryKey))
        let token = try viaSecond.record(.pushToken(provider: .apns, token: String(repeating: "ab", count: 32)))
        _ = try await viaSecond.flush()
        #expect(
            try polls.shown(tail) {
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
            try polls.shown(tail) {
                $0.contains("rejected experiment_exposure")
                    && $0.contains("id=\(old.uuidString.lowercased().prefix(8))") && $0.contains("error=too_old")
            })
        #expect(tail.lines.count == 3, "one line per event: \(tail.lines)")
        let tailGap = try #require(TailPolls.median(polls.gaps))
        let secondGap = try #require(TailPolls.median(polls.referenceGaps(seconds: 1, count: 3)))
        #expect(tailGap <= secondGap, "the tail polls every \(tailGap) s; a one-second loop took \(secondGap) s")
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
        let polls = try TailPolls(databaseURL: server.databaseURL)
        #expect(
            try polls.shown(tail) {
                $0.contains("permission_prompt") && $0.contains("after_first_order system granted")
            })
        // Two more polls: nothing more may appear.
        #expect(polls.waitForPolls(after: try polls.now(), count: 2) != nil)
        #expect(tail.lines.count == 1, "\(tail.lines)")
    }
}

/// The tail's polls as the database sees them: its backend's `query_start`, each poll one query.
final class TailPolls {
    let connection: Connection
    /// Seconds between polls seen one after the other while waiting (a poll is a query of a
    /// few milliseconds, half a second apart: sampled every 20 ms, none goes unseen).
    private(set) var gaps: [Double] = []

    init(databaseURL: String) throws { connection = try Connection.connect(url: databaseURL) }

    /// The database's clock now: everything committed before is visible to a poll that begins later.
    func now() throws -> Date { try connection.query("select clock_timestamp() as t")[0].decode("t") }

    /// Waits until `count` polls that began after `instant` were seen (at most a minute: a tail
    /// that stopped polling fails here, not a loaded machine); when the last of them began.
    func waitForPolls(after instant: Date, count: Int) -> Date? {
        let deadline = Date().addingTimeInterval(60)
        var seen = 0
        var previous: Date?
        while Date() < deadline {
            let start = try? connection.query(
                """
                select query_start from pg_stat_activity
                 where datname = current_database() and pid <> pg_backend_pid() and query like '%pushledger_tail(%'
                """
            ).first?.decode("query_start", as: Date.self)
            if let start, start != previous {
                if let previous { gaps.append(start.timeIntervalSince(previous)) }
                previous = start
                if start > instant { seen += 1 }
            }
            if seen >= count { return previous }
            usleep(20_000)
        }
        return nil
    }

    /// Whether a line matches once two polls that began after now have run (the first of them
    /// read the event, and by the second's start it has printed).
    func shown(_ run: ProbeRun, _ matches: (String) -> Bool) throws -> Bool {
        let committed = try now()
        guard let second = waitForPolls(after: committed, count: 2) else { return false }
        // Its output crosses a pipe: the line is read by the time a third poll begins.
        _ = waitForPolls(after: second, count: 1)
        return run.lines.contains(where: matches)
    }

    /// The same query run `count` more times from here, `seconds` apart: the gaps between their
    /// starts on this machine now.
    func referenceGaps(seconds: Double, count: Int) throws -> [Double] {
        var started: [Date] = []
        for _ in 0...count {
            started.append(try now())
            _ = try connection.query(
                "select count(*) from pushledger_tail(\(KitFixtures.app), now() - interval '1 minute')")
            usleep(UInt32(seconds * 1_000_000))
        }
        return zip(started, started.dropFirst()).map { $1.timeIntervalSince($0) }
    }

    static func median(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.sorted()[values.count / 2] }
}
