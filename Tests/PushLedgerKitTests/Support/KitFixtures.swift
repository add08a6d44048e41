import Foundation
import Postgres
import PushLedgerKit
import PushLedgerSupport
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

extension KitFixtures {
    /// The `pushledger-kit-probe` executable built next to the tests.
    static var probe: URL {
        CommandRunner.executable.deletingLastPathComponent().appendingPathComponent("pushledger-kit-probe")
    }
}

/// A migrated database, keys made with `pushledger keys create`, and `pushledger serve` on it.
final class KitServer: @unchecked Sendable {
    let databaseURL: String
    let telemetryKey: String
    let sendsKey: String
    private(set) var serve: ServeProcess

    init() throws {
        databaseURL = try TestDatabase.fresh(prefix: "kit")
        telemetryKey = try Self.pushledger(
            ["keys", "create", "--app", KitFixtures.app, "--scope", "telemetry"], databaseURL)
        sendsKey = try Self.pushledger(["keys", "create", "--app", KitFixtures.app, "--scope", "sends"], databaseURL)
        serve = try ServeProcess(databaseURL: databaseURL)
    }

    var baseURL: String { serve.baseURL }

    /// SIGKILL and a new server on the same port.
    func killAndRestart() throws {
        serve.send(SIGKILL)
        serve.waitForExit()
        serve = try ServeProcess(databaseURL: databaseURL, port: serve.port)
    }

    func connect() throws -> Connection { try Connection.connect(url: databaseURL) }

    /// Stored telemetry event ids with how many event-table rows each has (1 when stored once).
    func storedEventIDs() throws -> [String: Int] {
        let rows = try connect().query(
            """
            select event_id::text from (\(unsafeRaw: StoredEvents.unionAll(StoredEvents.telemetryTables))) stored \
            where app_id = \(KitFixtures.app)
            """
        )
        var counts: [String: Int] = [:]
        for row in rows { counts[try row.decode(0, as: String.self), default: 0] += 1 }
        return counts
    }

    @discardableResult
    static func pushledger(_ arguments: [String], _ url: String) throws -> String {
        let output = try CommandRunner.run(arguments + ["--log-level", "warning"], environment: ["DATABASE_URL": url])
        guard output.status == 0 else {
            throw RawHTTPError(
                description: "pushledger \(arguments.first ?? "") exited \(output.status): \(output.stderr)")
        }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
