import Foundation
import Synchronization

/// A small thread-safe pool. Workers borrow a connection for the length of a closure, so a
/// connection is never used by two threads at once; broken connections are dropped and
/// replaced by fresh ones on the next borrow.
public final class ConnectionPool: Sendable {
    /// Lets an idle connection sit in the lock-protected list; it is only ever handed to one
    /// borrower at a time.
    private struct Idle: @unchecked Sendable { let connection: Connection }

    private let url: String
    private let idle = Mutex<[Idle]>([])
    private let slots: DispatchSemaphore
    public let maxConnections: Int

    public init(url: String, maxConnections: Int) {
        precondition(maxConnections > 0)
        self.url = url
        self.maxConnections = maxConnections
        slots = DispatchSemaphore(value: maxConnections)
    }

    /// Runs `body` with a connection of the pool; waits while all are in use.
    public func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        slots.wait()
        defer { slots.signal() }
        let connection = try idle.withLock { $0.popLast() }?.connection ?? Connection.connect(url: url)
        defer {
            if connection.isHealthy {
                let returned = Idle(connection: connection)
                idle.withLock { $0.append(returned) }
            }
        }
        return try body(connection)
    }

    /// Closes every idle connection (e.g. after the database restarted).
    public func drain() {
        idle.withLock { $0.removeAll() }
    }
}
