import Dispatch
import Foundation
import Postgres
import Synchronization

/// Work on its own connection on another thread, for a test to block with its own transaction
/// or lock and watch in pg_locks.
final class BlockedWork<Value: Sendable>: @unchecked Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)
    /// The backend of the work's connection.
    let pid: Int

    /// Starts `work` on `connection`, which the test no longer uses.
    init(on connection: Connection, _ work: @escaping (Connection) throws -> Value) {
        pid = connection.backendPID
        nonisolated(unsafe) let connection = connection
        nonisolated(unsafe) let work = work
        DispatchQueue.global().async { [self] in
            let outcome = Result { try work(connection) }
            result.withLock { $0 = outcome }
            done.signal()
        }
    }

    /// Returns once the work waits for a lock, as `observer` sees in pg_locks.
    func waitUntilWaiting(seenFrom observer: Connection) throws {
        while try observer.query("select count(*)::int as n from pg_locks where pid = \(pid) and not granted")[0]
            .decode("n", as: Int.self) == 0
        {
            usleep(10_000)
        }
    }

    /// What the work returned, once it has finished.
    func value() throws -> Value {
        done.wait()
        return try result.withLock { try $0!.get() }
    }
}
