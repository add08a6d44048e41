import Foundation
import Synchronization

/// Deadlines libmicrohttpd does not have: its timeout is an idle timeout, reset by every byte,
/// so a client trickling one header line every few seconds holds a connection for ever. The
/// guard tracks every open connection (`MHD_OPTION_NOTIFY_CONNECTION`) and
///
/// - closes a connection whose request headers have not all arrived by the header deadline
///   (from accept; on a kept-alive connection, the idle timeout from the previous answer);
/// - when the open connections reach the shedding threshold, closes the oldest connections
///   still waiting for their headers, so new clients get in instead of being refused.
///
/// Closing is `shutdown(2)` of the socket, never `close`: libmicrohttpd owns the descriptor, sees
/// the hang-up at its next poll and closes the connection itself. The table lock is held from
/// the lookup to the shutdown and by the CLOSED notification, so a descriptor is never touched
/// after libmicrohttpd has let it go.
final class ConnectionGuard: Sendable {
    private struct Entry {
        var socket: Int32
        /// Since when it has been waiting for a request's headers: accept, or the last answer.
        var waitingSince: ContinuousClock.Instant
        /// Nil while a request is being served (its headers are in).
        var deadline: ContinuousClock.Instant?
    }

    private let table = Mutex<[Int: Entry]>([:])
    private let headerDeadline: Duration
    private let keepAliveDeadline: Duration
    private let shedThreshold: Int
    private let closedSlow = Atomic<Int>(0)
    private let shed = Atomic<Int>(0)

    /// `shedThreshold`: open connections at which the slowest are shed (below the daemon's limit).
    init(headerDeadline: Duration, keepAliveDeadline: Duration, shedThreshold: Int) {
        self.headerDeadline = headerDeadline
        self.keepAliveDeadline = keepAliveDeadline
        self.shedThreshold = max(1, shedThreshold)
    }

    /// Connections closed for missing the header deadline, and shed to make room.
    var counts: (deadline: Int, shed: Int) { (closedSlow.load(ordering: .relaxed), shed.load(ordering: .relaxed)) }
    var open: Int { table.withLock { $0.count } }

    func started(_ id: Int, socket: Int32) {
        let now = ContinuousClock.now
        table.withLock { table in
            table[id] = Entry(socket: socket, waitingSince: now, deadline: now + headerDeadline)
            var excess = table.count - shedThreshold
            guard excess > 0 else { return }
            // Those waiting longest for headers are the slowest to send a request.
            let waiting = table.filter { $0.key != id && $0.value.deadline != nil }
                .sorted { $0.value.waitingSince < $1.value.waitingSince }
            for (victim, entry) in waiting where excess > 0 {
                shutdown(entry.socket, Int32(SHUT_RDWR))
                table[victim]?.deadline = nil
                shed.add(1, ordering: .relaxed)
                excess -= 1
            }
        }
    }

    /// The request's headers are complete: no deadline while it is served.
    func headersReceived(_ id: Int) { table.withLock { $0[id]?.deadline = nil } }

    /// An answer went out: the next request's headers must arrive within the idle timeout.
    func answered(_ id: Int) {
        let now = ContinuousClock.now
        table.withLock { table in
            table[id]?.waitingSince = now
            table[id]?.deadline = now + keepAliveDeadline
        }
    }

    func closed(_ id: Int) { _ = table.withLock { $0.removeValue(forKey: id) } }

    /// Closes every connection past its header deadline (called a few times a second).
    func reap() {
        let now = ContinuousClock.now
        table.withLock { table in
            for (id, entry) in table {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                shutdown(entry.socket, Int32(SHUT_RDWR))
                table[id]?.deadline = nil
                closedSlow.add(1, ordering: .relaxed)
            }
        }
    }
}
