import Foundation
import PushLedgerSupport
import Synchronization

/// The in-memory key table, reloaded from the database every few seconds so that checking a
/// key never waits for Postgres. An unknown key is answered unknown at once and starts one
/// reload in the background (at most one a second, so a flood of bad keys costs the database
/// little and never holds an HTTP thread): a key made with `pushledger keys create` works from
/// the request after that reload, within a second or so.
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
        /// The table was never loaded (database down since start): the caller answers 503.
        case unavailable
    }

    private let table = Mutex<[KeyRecord]?>(nil)
    private let loader: (@Sendable () -> [KeyRecord]?)?
    /// When the last on-demand reload started, and whether one is running.
    private let onDemand = Mutex<(started: ContinuousClock.Instant?, running: Bool)>((nil, false))
    private let onDemandInterval: Duration
    private let flushInterval: TimeInterval
    private let now: @Sendable () -> Date
    /// Per key id: its latest use, and the use and time of its last stored flush.
    private let uses = Mutex<[String: KeyUse]>([:])

    private struct KeyUse {
        var latest: Date
        var flushed: Date?
        var flushedAt: Date?
    }

    /// `loader` returns the current keys, or nil when the database can't say. `now` is the
    /// wall clock that expiry and last use are read from.
    init(
        loader: (@Sendable () -> [KeyRecord]?)? = nil, onDemandInterval: Duration = .seconds(1),
        flushInterval: TimeInterval = 60, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.loader = loader
        self.onDemandInterval = onDemandInterval
        self.flushInterval = flushInterval
        self.now = now
    }

    /// Replaces the table.
    func replace(with keys: [KeyRecord]) {
        table.withLock { $0 = keys }
    }

    var isLoaded: Bool { table.withLock { $0 != nil } }

    /// Looks a presented key up by its SHA-256. Every stored hash is compared in constant time
    /// and the scan never stops early, so timing says nothing about how close a guess came.
    func verify(_ key: String) -> Verdict {
        let presented = SHA256.hash(Array(key.utf8))
        let verdict = lookup(presented)
        guard verdict == .unknown, let loader else { return verdict }
        let now = ContinuousClock.now
        let start = onDemand.withLock { state -> Bool in
            if state.running { return false }
            if let started = state.started, now - started < onDemandInterval { return false }
            state = (now, true)
            return true
        }
        if start {
            let thread = Thread { [self] in
                if let records = loader() { replace(with: records) }
                onDemand.withLock { $0.running = false }
            }
            thread.name = "pushledger-key-reload"
            thread.start()
        }
        return verdict
    }

    /// True while an on-demand reload runs (tests wait for it).
    var isReloading: Bool { onDemand.withLock { $0.running } }

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
