import Foundation
import Synchronization

/// Deadlines libmicrohttpd does not have: its timeout is an idle timeout, reset by every byte,
/// so a client trickling one header line every few seconds holds a connection for ever. The
/// guard tracks every open connection (`MHD_OPTION_NOTIFY_CONNECTION`) and
///
/// - closes a connection whose request headers have not all arrived by the header deadline
///   (from accept; on a kept-alive connection, the idle timeout from the previous answer);
/// - closes a connection whose request body has not all arrived by the upload deadline (from
///   its headers), on a timer: a client that stops sending mid-body is not waited for until
///   its next chunk;
/// - caps the uploads in progress from one client address (the rest are answered 429 before
///   their body is read);
/// - when the open connections reach the shedding threshold, closes the oldest connections
///   still waiting for their headers, then the uploads in progress longest, so new clients get
///   in instead of being refused.
///
/// Closing is `shutdown(2)` of the socket, never `close`: libmicrohttpd owns the descriptor, sees
/// the hang-up at its next poll and closes the connection itself. The table lock is held from
/// the lookup to the shutdown and by the CLOSED notification, so a descriptor is never touched
/// after libmicrohttpd has let it go.
final class ConnectionGuard: Sendable {
    private typealias Upload = (since: ContinuousClock.Instant, deadline: ContinuousClock.Instant)

    private struct Entry {
        var socket: Int32
        /// Since when it has been waiting for a request's headers: accept, or the last answer.
        var waitingSince: ContinuousClock.Instant
        /// Nil while a request is being served (its headers are in).
        var deadline: ContinuousClock.Instant?
        /// While its body arrives: since when, and by when it must be complete.
        var upload: Upload?
        /// The peer's address (IPv4 or IPv6 bytes), for the per-address upload cap.
        var address: [UInt8]
    }

    /// The open connections, and the uploads in progress per peer address kept beside them, so
    /// the per-address cap is a look-up, not a scan of every connection under the lock.
    private struct Table {
        var entries: [Int: Entry] = [:]
        var uploads: [[UInt8]: Int] = [:]

        mutating func setUpload(_ id: Int, _ upload: Upload?) {
            guard let entry = entries[id] else { return }
            entries[id]?.upload = upload
            switch (entry.upload != nil, upload != nil) {
            case (false, true): uploads[entry.address, default: 0] += 1
            case (true, false):
                let left = (uploads[entry.address] ?? 1) - 1
                uploads[entry.address] = left > 0 ? left : nil
            default: break
            }
        }

        mutating func remove(_ id: Int) {
            setUpload(id, nil)
            entries[id] = nil
        }
    }

    private let table = Mutex(Table())
    private let headerDeadline: Duration
    private let keepAliveDeadline: Duration
    private let shedThreshold: Int
    private let uploadDeadline: Duration
    private let uploadsPerAddress: Int
    private let closedSlow = Atomic<Int>(0)
    private let shed = Atomic<Int>(0)

    /// `shedThreshold`: open connections at which the slowest are shed (below the daemon's limit).
    init(
        headerDeadline: Duration, keepAliveDeadline: Duration, shedThreshold: Int,
        uploadDeadline: Duration = .seconds(60),
        uploadsPerAddress: Int = .max
    ) {
        self.headerDeadline = headerDeadline
        self.keepAliveDeadline = keepAliveDeadline
        self.shedThreshold = max(1, shedThreshold)
        self.uploadDeadline = uploadDeadline
        self.uploadsPerAddress = max(1, uploadsPerAddress)
    }

    /// Connections closed for missing the header deadline, and shed to make room.
    var counts: (deadline: Int, shed: Int) { (closedSlow.load(ordering: .relaxed), shed.load(ordering: .relaxed)) }
    var open: Int { table.withLock { $0.entries.count } }

    func started(_ id: Int, socket: Int32) {
        let now = ContinuousClock.now
        let address = Self.peerAddress(socket)
        table.withLock { table in
            table.entries[id] = Entry(
                socket: socket, waitingSince: now, deadline: now + headerDeadline, address: address)
            var excess = table.entries.count - shedThreshold
            guard excess > 0 else { return }
            // Those waiting longest for headers are the slowest to send a request; then the
            // uploads in progress longest, the slowest to send a body.
            let waiting = table.entries.filter { $0.key != id && $0.value.deadline != nil }
                .sorted { $0.value.waitingSince < $1.value.waitingSince }
            let uploading = table.entries.filter { $0.key != id && $0.value.upload != nil }
                .sorted { $0.value.upload!.since < $1.value.upload!.since }
            for (victim, entry) in waiting + uploading where excess > 0 {
                shutdown(entry.socket, Int32(SHUT_RDWR))
                table.entries[victim]?.deadline = nil
                table.setUpload(victim, nil)
                shed.add(1, ordering: .relaxed)
                excess -= 1
            }
        }
    }

    /// The request's headers are complete: no header deadline while it is served.
    func headersReceived(_ id: Int) { table.withLock { $0.entries[id]?.deadline = nil } }

    /// Its body starts to arrive: false (and nothing tracked) when its address already has
    /// `uploadsPerAddress` uploads in progress.
    func uploadStarting(_ id: Int) -> Bool {
        let now = ContinuousClock.now
        return table.withLock { table in
            guard let address = table.entries[id]?.address else { return true }
            guard table.uploads[address, default: 0] < uploadsPerAddress else { return false }
            table.setUpload(id, (now, now + uploadDeadline))
            return true
        }
    }

    /// The body is complete (or the request was answered).
    func uploadEnded(_ id: Int) { table.withLock { $0.setUpload(id, nil) } }

    /// An answer went out: the next request's headers must arrive within the idle timeout.
    func answered(_ id: Int) {
        let now = ContinuousClock.now
        table.withLock { table in
            table.entries[id]?.waitingSince = now
            table.entries[id]?.deadline = now + keepAliveDeadline
            table.setUpload(id, nil)
        }
    }

    func closed(_ id: Int) { table.withLock { $0.remove(id) } }

    /// Closes every connection past its header or upload deadline (called a few times a second).
    func reap() {
        let now = ContinuousClock.now
        table.withLock { table in
            for (id, entry) in table.entries {
                let late = entry.deadline.map { $0 <= now } ?? false || entry.upload.map { $0.deadline <= now } ?? false
                guard late else { continue }
                shutdown(entry.socket, Int32(SHUT_RDWR))
                table.entries[id]?.deadline = nil
                table.setUpload(id, nil)
                closedSlow.add(1, ordering: .relaxed)
            }
        }
    }

    /// The peer's address bytes (empty when the socket has none, e.g. in tests).
    static func peerAddress(_ socket: Int32) -> [UInt8] {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &length) }
        }
        guard got == 0 else { return [] }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &storage) { bytes in
                let address = bytes.load(
                    fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_addr)!, as: in_addr.self)
                return withUnsafeBytes(of: address) { Array($0) }
            }
        case AF_INET6:
            return withUnsafeBytes(of: &storage) { bytes in
                let address = bytes.load(
                    fromByteOffset: MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_addr)!, as: in6_addr.self)
                return withUnsafeBytes(of: address) { Array($0) }
            }
        default:
            return []
        }
    }
}
