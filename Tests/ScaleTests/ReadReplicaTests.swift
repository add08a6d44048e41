import Foundation
import Postgres
import PushLedgerSupport
import Simulator
import TestSupport
import Testing

/// Reports on a real streaming replica (`scripts/db.sh replica`: pg_basebackup -R of a cluster
/// the test starts): once the standby has replayed the primary's WAL, the weekly report and
/// the silent-loss report read there equal the primary's, and no read path tries to write.
@Suite("Reads on a hot standby", .serialized)
struct ReadReplicaTests {
    @Test func reportsFromTheStandbyEqualThePrimarysOnceReplayed() throws {
        let primary = try ScaleCluster(name: "scale-primary")
        defer { primary.destroy() }
        // The standby is copied from the empty cluster: the schema and the fleet arrive by streaming.
        let standby = try ScaleCluster(name: "scale-standby", standbyOf: primary)
        defer { standby.destroy() }
        let primaryConnection = try Connection.connect(url: primary.url)
        let standbyConnection = try Connection.connect(url: standby.url)
        #expect(try standbyConnection.query("select pg_is_in_recovery()")[0].decode(0, as: Bool.self))

        try pushledger(["migrate"], database: primary.url)
        let fleet = ScaleFleet(installs: 200, seed: 21)
        try fleet.addKeys(primaryConnection)
        let truth: Truth
        do {
            let server = try ServeProcess(databaseURL: primary.url)
            truth = try fleet.post(to: server.baseURL, threads: 4).truth
        }
        try pushledger(["rollup"], database: primary.url)

        // Replayed: the standby has applied everything the primary wrote so far.
        let lsn: String = try primaryConnection.query("select pg_current_wal_lsn()::text")[0].decode(0)
        waitUntil {
            (try? standbyConnection.query("select pg_last_wal_replay_lsn() >= \(lsn)::pg_lsn")[0].decode(
                0, as: Bool.self)) ?? false
        }
        #expect(try fleet.storedEvents(standbyConnection) == truth.telemetryEvents + truth.sends)

        let app = truth.appID
        let week = ISOWeek(containing: Date(timeIntervalSince1970: Double(truth.window.to) / 1000 - 1)).description
        let weekly = ["report", "weekly", "--app", app, "--week", week, "--format", "json"]
        func iso(_ ms: Int64) -> String { Fixtures.time(Date(timeIntervalSince1970: Double(ms) / 1000)) }
        let silentLoss = [
            "report", "silent-loss", "--app", app, "--from", iso(truth.window.from), "--to", iso(truth.window.to),
            "--as-of", iso(truth.window.asOf), "--by", "day,channel,platform", "--format", "json",
        ]
        // Read from the standby, written (nothing, for reports) on the primary.
        let fromStandby = (
            weekly: try pushledger(weekly, database: primary.url, read: standby.url),
            silentLoss: try pushledger(silentLoss, database: primary.url, read: standby.url)
        )
        // The primary's reports, from the same refresh (reports never refresh).
        let fromPrimary = (
            weekly: try pushledger(weekly, database: primary.url, read: primary.url),
            silentLoss: try pushledger(silentLoss, database: primary.url)
        )
        #expect(fromStandby.weekly == fromPrimary.weekly)
        #expect(fromStandby.silentLoss == fromPrimary.silentLoss)
        // Not two empty reports: the fleet's sends are in both.
        let sends = (try JSONSerialization.jsonObject(with: Data(fromStandby.silentLoss.utf8)) as? [String: Any])
            .flatMap { $0["rows"] as? [[String: Any]] }?.compactMap { $0["sends"] as? Int }.reduce(0, +)
        #expect(sends == truth.outcomesByDay.map(\.count).reduce(0, +))
        #expect(fromStandby.weekly.contains("\"week\""))

        // The other read paths work on the standby too.
        try pushledger(
            ["query", "silent-loss", "--app", app, "--since", "7d"], database: primary.url, read: standby.url)
        try pushledger(["alert", "list"], database: primary.url, read: standby.url)
        let check = try CommandRunner.run(
            ["alert", "check", "--log-level", "warning"],
            environment: ["DATABASE_URL": primary.url, "PUSHLEDGER_READ_DATABASE_URL": standby.url])
        #expect(check.status == 0 || check.status == 1, "alert check: \(check.stderr)")

        // Reports only read: pointed at the standby as its only database, the weekly report runs
        // and is the same; the rollup, which writes, is refused there.
        #expect(try pushledger(weekly, database: standby.url) == fromStandby.weekly)
        let refused = try CommandRunner.run(
            ["rollup", "--log-level", "debug"], environment: ["DATABASE_URL": standby.url])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("read-only"), "\(refused.stderr)")
    }

    /// Runs the CLI; a non-zero exit throws with its stderr. Returns stdout.
    @discardableResult
    func pushledger(_ arguments: [String], database: String, read: String? = nil) throws -> String {
        var environment = ["DATABASE_URL": database]
        if let read { environment["PUSHLEDGER_READ_DATABASE_URL"] = read }
        let output = try CommandRunner.run(arguments + ["--log-level", "warning"], environment: environment)
        guard output.status == 0 else {
            throw ScaleTestError(
                description: "pushledger \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)")
        }
        return output.stdout
    }
}

/// A cluster of its own (scripts/db.sh), optionally a streaming standby of another.
struct ScaleCluster {
    let name: String
    let url: String

    init(name: String, standbyOf primary: ScaleCluster? = nil) throws {
        self.name = name
        try Self.script(["destroy", name])
        url = try Self.script(primary.map { ["replica", name, $0.name] } ?? ["start", name])
    }

    func destroy() { _ = try? Self.script(["destroy", name]) }

    @discardableResult
    static func script(_ arguments: [String]) throws -> String {
        let script = TestDatabase.repositoryRoot.appendingPathComponent("scripts/db.sh")
        let output = try CommandRunner.run(arguments, program: script)
        guard output.status == 0 else {
            throw ScaleTestError(description: "db.sh \(arguments.joined(separator: " ")): \(output.stderr)")
        }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
