import Foundation
import Postgres
import Store
import TestSupport

/// The loopback Patroni cluster of scripts/patroni.sh (one etcd, nodes n1 and n2, running
/// deploy/patroni/patroni.yml), shared by the failover suite: started once, reused by every
/// scenario (each puts it back whole first), destroyed when the test process exits.
final class PatroniCluster: Sendable {
    static let name = "failover"
    /// The multi-host URL of the `pushledger` database, as the operations guide writes it.
    let url: String

    /// Started on first use; nil with the reason when it cannot start.
    static let shared: Result<PatroniCluster, RawHTTPError> = {
        do {
            try script("destroy")
            let cluster = try PatroniCluster(url: script("start"))
            atexit { _ = try? PatroniCluster.script("destroy") }
            return .success(cluster)
        } catch let error as RawHTTPError {
            return .failure(error)
        } catch {
            return .failure(RawHTTPError(description: "\(error)"))
        }
    }()

    private init(url: String) { self.url = url }

    /// The URL of database `name` on the cluster, as `user`.
    func url(database name: String, user: String = "pushledger") -> String {
        url.replacingOccurrences(of: "/pushledger?", with: "/\(name)?").replacingOccurrences(
            of: "pushledger@", with: "\(user)@")
    }

    /// A new migrated database (copied from one migrated on first use); returns its URL.
    func freshDatabase(prefix: String) throws -> String {
        let admin = try Connection.connect(url: url(database: "postgres", user: "postgres"))
        let template = "pl_failover_template"
        let exists: Bool = try admin.query(
            "select exists (select 1 from pg_database where datname = \(template)) as e")[0].decode("e")
        if !exists {
            try admin.execute("create database \(identifier: template) owner pushledger")
            try Migrator(directory: TestDatabase.sqlDirectory).migrate(
                Connection.connect(url: visible(url(database: template))))
        }
        let name = "pl_\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        try admin.execute("create database \(identifier: name) owner pushledger template \(identifier: template)")
        return visible(url(database: name))
    }

    /// `url` once it connects: libpq tries the hosts in order and does not go on past a server
    /// that refuses the database, so a new database waits until the standby has replayed it.
    private func visible(_ url: String) -> String {
        for _ in 0..<300 {
            if (try? Connection.connect(url: url)) != nil { return url }
            usleep(100_000)
        }
        return url
    }

    /// Both nodes running, a primary and a synchronous standby (starts whatever is down).
    func restore() throws { try Self.script("start") }
    /// The primary now ("n1", "n2"), nil while there is none.
    func leader() -> String? { try? Self.script("leader").nonEmpty }
    /// The synchronous standby now, nil while there is none.
    func syncStandby() -> String? { try? Self.script("sync").nonEmpty }
    /// The node's machine dies: Patroni, postmaster and backends SIGKILLed at once. `diverged`:
    /// the node, a primary, first commits WAL its standby never receives, so it must be rewound.
    func killMachine(_ node: String, diverged: Bool = false) throws {
        try Self.script(diverged ? "kill-diverged" : "kill", node)
    }
    /// How many MB etcd has the node, a running replica, behind the primary's last recorded
    /// position: what Patroni weighs before the node may take over. Nil otherwise.
    func recordedLag(_ node: String) -> Int? { (try? Self.script("lag", node)).flatMap { Int($0) } }
    /// How many times the node's Patroni has run pg_rewind.
    func rewinds(_ node: String) -> Int { (try? Self.script("rewinds", node)).flatMap { Int($0) } ?? 0 }
    /// PostgreSQL dies on the node; its Patroni stays.
    func crashPostgres(_ node: String) throws { try Self.script("crash", node) }
    /// The node's machine is back: Patroni starts again.
    func startNode(_ node: String) throws { try Self.script("start-node", node) }
    /// What a failed test prints: the members, who holds each node's ports, each node's last log lines.
    func diagnosis() -> String { (try? Self.script("diagnose")) ?? "patroni.sh diagnose failed" }
    /// `patronictl switchover` to the synchronous standby.
    func switchover() throws { try Self.script("switchover") }

    @discardableResult
    static func script(_ command: String, _ extra: String...) throws -> String {
        let script = TestDatabase.repositoryRoot.appendingPathComponent("scripts/patroni.sh")
        let output = try CommandRunner.run([command, name] + extra, program: script)
        guard output.status == 0 else { throw RawHTTPError(description: "patroni.sh \(command): \(output.stderr)") }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
