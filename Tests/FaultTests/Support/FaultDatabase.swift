import Foundation
import Postgres
import TestSupport

/// A migrated database with keys made the way an operator makes them (`pushledger keys
/// create`), and the checks every fault test ends with: what was acknowledged is stored, and
/// nothing is stored twice.
struct FaultDatabase: Sendable {
    static let app = "com.example.shop"
    static let otherApp = "com.example.other"

    let url: String
    let telemetryKey: String
    let sendsKey: String

    /// A fresh database on the test cluster.
    static func fresh() throws -> FaultDatabase {
        try FaultDatabase(url: TestDatabase.fresh(prefix: "fault"), migrate: false)
    }

    /// Keys for `url`, after `pushledger migrate` when `migrate` (a database of its own cluster).
    init(url: String, migrate: Bool) throws {
        self.url = url
        if migrate { try Self.pushledger(["migrate"], url) }
        telemetryKey = try Self.createKey(app: Self.app, scope: "telemetry", url)
        sendsKey = try Self.createKey(app: Self.app, scope: "sends", url)
    }

    static func createKey(app: String, scope: String, _ url: String) throws -> String {
        try pushledger(["keys", "create", "--app", app, "--scope", scope], url).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// Revokes a key with `pushledger keys revoke`, finding its id by the key's SHA-256 (the
    /// only form of it the database holds).
    func revokeKey(_ secret: String) throws {
        let id = try connect().query(
            "select id::text from api_keys where key_hash = sha256(convert_to(\(secret), 'UTF8'))")[0]
            .decode(0, as: String.self)
        try Self.pushledger(["keys", "revoke", id], url)
    }

    /// Runs the CLI against `url`; a non-zero exit throws with its stderr.
    @discardableResult
    static func pushledger(_ arguments: [String], _ url: String) throws -> CommandRunner.Output {
        let output = try CommandRunner.run(arguments + ["--log-level", "warning"], environment: ["DATABASE_URL": url])
        guard output.status == 0 else {
            throw RawHTTPError(
                description: "pushledger \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)")
        }
        return output
    }

    func connect() throws -> Connection { try Connection.connect(url: url) }

    func count(_ sql: SQL) throws -> Int { try connect().query(sql)[0].decode(0, as: Int.self) }

    /// The event ids of `app` in the de-duplication ledger (one row per stored event).
    func storedEventIDs(app: String = Self.app) throws -> Set<String> {
        let rows = try connect().query("select event_id::text from event_ids where app_id = \(app)")
        return Set(try rows.map { try $0.decode(0, as: String.self) })
    }

    /// Rows of the event tables beyond one per (app, event id): 0 when nothing is stored twice.
    func storedTwice() throws -> Int { try StoredEvents.storedTwice(connect()) }

    /// The end-of-test ledger check: (acknowledged events missing, events stored twice).
    func audit(_ acknowledged: Set<String>) throws -> (missing: Int, twice: Int) {
        (acknowledged.subtracting(try storedEventIDs()).count, try storedTwice())
    }
}
