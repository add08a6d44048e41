import Dispatch
import Foundation
import Postgres
import Synchronization

/// A second connection to the database, on which a pass classifies most of its whole days while
/// its own connection looks up what else the inputs affect and classifies the rest
/// (docs/rollups.md "Two connections"). Opened when first needed or by ``open()``, kept for the
/// next passes, and opened again after it broke.
public final class SecondConnection: Sendable {
    /// The `application_name` of its session.
    public static let applicationName = "pushledger-rollup-second"

    private let connect: @Sendable () throws -> Connection
    private let connection = Mutex<Connection?>(nil)

    /// `connect` opens a new connection to the same database as the pass's.
    public init(connect: @escaping @Sendable () throws -> Connection) {
        self.connect = connect
    }

    /// Opens the connection now unless it is open (a follower does so as it starts leading).
    public func open() throws {
        try connection.withLock { slot in _ = try opened(&slot) }
    }

    private func opened(_ slot: inout Connection?) throws -> Connection {
        if let open = slot, open.isHealthy { return open }
        slot = nil
        let fresh = try connect()
        _ = try fresh.execute("select set_config('application_name', \(Self.applicationName), false)")
        slot = fresh
        return fresh
    }

    /// Classifies the runs `runs` (JSON of sql/engine/rollups.sql's
    /// pushledger_second_connection_runs) as of `asOf` in the exported snapshot `snapshot` into
    /// `rollup_second_rows`, and commits, on a thread of its own; how many rows comes from the
    /// returned part's ``Part/wait()``.
    func classify(runs: String, asOf: Date, window: String, snapshot: String) -> Part {
        let part = Part()
        Thread {
            part.finish(
                Result {
                    try self.connection.withLock { slot in
                        let second = try self.opened(&slot)
                        do {
                            // An identifier such as 00000003-0000001B-1; SET takes no parameter.
                            guard snapshot.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
                                throw PostgresError(
                                    code: .misuse, message: "unexpected snapshot identifier \(snapshot)")
                            }
                            try second.executeScript("BEGIN ISOLATION LEVEL REPEATABLE READ")
                            try second.executeScript("SET TRANSACTION SNAPSHOT '\(snapshot)'")
                            let stored: Int = try second.query(
                                """
                                select pushledger_store_second_rows(\(runs)::json, \(asOf), \(window)::interval)::int \
                                as stored
                                """)[0].decode("stored")
                            try second.executeScript("COMMIT")
                            return stored
                        } catch {
                            // Kept only when it can be used again.
                            if (try? second.executeScript("ROLLBACK")) == nil { slot = nil }
                            throw error
                        }
                    }
                })
        }.start()
        return part
    }

    /// The outcome of one ``classify(runs:asOf:window:snapshot:)``, handed from its thread.
    final class Part: Sendable {
        private let result = Mutex<Result<Int, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        fileprivate func finish(_ outcome: Result<Int, any Error>) {
            result.withLock { $0 = outcome }
            done.signal()
        }

        /// Blocks until the rows are stored (how many) or the work failed.
        func wait() -> Result<Int, any Error> {
            done.wait()
            return result.withLock { $0! }
        }
    }
}
