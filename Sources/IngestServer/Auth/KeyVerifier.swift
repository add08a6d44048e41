import Foundation
import PushLedgerSupport
import Synchronization

/// The in-memory key table: a known key is checked without waiting for Postgres.
///
/// The table follows the database three ways: every key change is announced as it commits and
/// read again at once (`KeyChangeWatcher`); a periodic reload catches anything else; and a key
/// the table lacks is not refused on the table's word. Its request waits, without holding a
/// thread, for one fresh read of the key table that started after the request arrived
/// (`confirm`), and only then gets 401. Fresh reads are shared by every request waiting at
/// that moment, one at a time and at most one per `readInterval`, so a flood of unknown keys
/// costs the database a few reads a second and never delays a request whose key is known.
///
/// Uses are remembered in memory and handed out for storing at most once per `flushInterval`
/// per key, so `keys list` shows a last use without a database write per request.
final class KeyVerifier: Sendable {
    /// What a presented key turned out to be.
    enum Verdict: Equatable {
        case valid(KeyRecord)
        case unknown
        case revoked(KeyRecord)
        /// Past its `expiresAt`: 401 `key_expired`, so the sender knows to switch keys.
        case expired(KeyRecord)
        /// The table was never loaded, or a fresh read for an unknown key failed: the caller
        /// answers 503, since nobody can say the key is wrong.
        case unavailable
    }

    private let table = Mutex<[KeyRecord]?>(nil)
    private let loader: (@Sendable () -> [KeyRecord]?)?
    private let reads = Mutex(Reads())
    private let readInterval: Duration
    private let flushInterval: TimeInterval
    private let now: @Sendable () -> Date
    /// Per key id: its latest use, and the use and time of its last stored flush.
    private let uses = Mutex<[String: KeyUse]>([:])

    private struct KeyUse {
        var latest: Date
        var flushed: Date?
        var flushedAt: Date?
    }

    /// A request whose key the table lacked, waiting for a read that started after `arrived`.
    private struct Waiter {
        var arrived: ContinuousClock.Instant
        var hash: [UInt8]
        var done: @Sendable (Verdict) -> Void
    }

    /// The fresh reads: whether the reader runs, when its last read started, what waits for one.
    private struct Reads {
        var running = false
        var lastStart: ContinuousClock.Instant?
        var waiters: [Waiter] = []
        /// A change was announced: read even if no request waits.
        var changed = false
        var count = 0
    }

    /// `loader` returns the current keys, or nil when the database can't say. `readInterval`
    /// spaces fresh reads (at most one per interval); `now` is the wall clock that expiry and
    /// last use are read from.
    init(
        loader: (@Sendable () -> [KeyRecord]?)? = nil, readInterval: Duration = .milliseconds(200),
        flushInterval: TimeInterval = 60, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.loader = loader
        self.readInterval = readInterval
        self.flushInterval = flushInterval
        self.now = now
    }

    /// Replaces the table.
    func replace(with keys: [KeyRecord]) {
        table.withLock { $0 = keys }
    }

    var isLoaded: Bool { table.withLock { $0 != nil } }

    /// Fresh reads done so far (metrics and tests).
    var freshReads: Int { reads.withLock { $0.count } }

    /// Looks a presented key up in memory by its SHA-256. Every stored hash is compared in
    /// constant time and the scan never stops early, so timing says nothing about how close a
    /// guess came. `.unknown` is the table's word only: `confirm` asks the database.
    func verify(_ key: String) -> Verdict {
        lookup(SHA256.hash(Array(key.utf8)))
    }

    /// The verdict on `key` after a read of the key table that started after `arrived`: `done`
    /// is called once, on the reader's thread (or at once without a loader).
    func confirm(_ key: String, arrived: ContinuousClock.Instant, _ done: @escaping @Sendable (Verdict) -> Void) {
        let hash = SHA256.hash(Array(key.utf8))
        guard loader != nil else { return done(lookup(hash)) }
        let start = reads.withLock { reads -> Bool in
            reads.waiters.append(Waiter(arrived: arrived, hash: hash, done: done))
            return startReader(&reads)
        }
        if start { spawnReader() }
    }

    /// Reads the keys again soon (a change was announced, or the listener reconnected).
    func reloadSoon() {
        guard loader != nil else { return }
        let start = reads.withLock { reads -> Bool in
            reads.changed = true
            return startReader(&reads)
        }
        if start { spawnReader() }
    }

    /// True while the reader has work (tests wait for it).
    var isReloading: Bool { reads.withLock { $0.running } }

    private func sleepFor(_ pause: Duration) {
        let (seconds, attoseconds) = pause.components
        usleep(UInt32(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }

    private func startReader(_ reads: inout Reads) -> Bool {
        guard !reads.running else { return false }
        reads.running = true
        return true
    }

    private func spawnReader() {
        let thread = Thread { [self] in readWhileNeeded() }
        thread.name = "pushledger-key-reload"
        thread.start()
    }

    /// One read at a time, spaced by `readInterval`, until nobody waits and no change is due.
    private func readWhileNeeded() {
        while true {
            let pause = reads.withLock { reads -> Duration? in
                guard !reads.waiters.isEmpty || reads.changed else {
                    reads.running = false
                    return nil
                }
                guard let last = reads.lastStart else { return .zero }
                return max(.zero, last + readInterval - ContinuousClock.now)
            }
            guard let pause else { return }
            if pause > .zero { sleepFor(pause) }
            let started = ContinuousClock.now
            reads.withLock {
                $0.lastStart = started
                $0.changed = false
                $0.count += 1
            }
            let records = loader?()
            if let records { replace(with: records) }
            let due = reads.withLock { reads -> [Waiter] in
                let due = reads.waiters.filter { $0.arrived < started }
                reads.waiters.removeAll { $0.arrived < started }
                return due
            }
            for waiter in due {
                let verdict = lookup(waiter.hash)
                waiter.done(verdict == .unknown && records == nil ? .unavailable : verdict)
            }
        }
    }

    /// The uses to store now: keys used since their last flush, at most one flush per key per
    /// `flushInterval` (`all`: every unflushed use, at shutdown). Call `flushed` after storing.
    func usesToFlush(all: Bool = false) -> [(id: String, at: Date)] {
        let now = now()
        return uses.withLock { uses in
            uses.compactMap { id, use in
                guard use.flushed.map({ use.latest > $0 }) ?? true else { return nil }
                guard all || use.flushedAt.map({ now.timeIntervalSince($0) >= flushInterval }) ?? true else {
                    return nil
                }
                return (id, use.latest)
            }.sorted { $0.id < $1.id }
        }
    }

    /// Marks `batch` (from `usesToFlush`) as stored.
    func flushed(_ batch: [(id: String, at: Date)]) {
        let now = now()
        uses.withLock { uses in
            for use in batch {
                uses[use.id]?.flushed = use.at
                uses[use.id]?.flushedAt = now
            }
        }
    }

    private func lookup(_ presented: [UInt8]) -> Verdict {
        guard let keys = table.withLock({ $0 }) else { return .unavailable }
        var match: KeyRecord?
        for record in keys where SHA256.constantTimeEquals(record.hash, presented) {
            match = record
        }
        guard let match else { return .unknown }
        if match.revoked { return .revoked(match) }
        let now = now()
        if let expiry = match.expiresAt, expiry <= now { return .expired(match) }
        uses.withLock { uses in
            if uses[match.id] == nil { uses[match.id] = KeyUse(latest: now) } else { uses[match.id]!.latest = now }
        }
        return .valid(match)
    }
}
