import PushLedgerSupport
import Synchronization

/// The in-memory key table, reloaded from the database every few seconds so that checking a
/// key never waits for Postgres. An unknown key triggers one reload on the spot (at most one a
/// second, so a flood of bad keys costs the database little): a key made with
/// `pushledger keys create` works on its first request.
final class KeyVerifier: Sendable {
    /// What a presented key turned out to be.
    enum Verdict: Equatable {
        case valid(KeyRecord)
        case unknown
        case revoked(KeyRecord)
        /// The table was never loaded (database down since start): the caller answers 503.
        case unavailable
    }

    private let table = Mutex<[KeyRecord]?>(nil)
    private let loader: (@Sendable () -> [KeyRecord]?)?
    private let onDemand = Mutex<(started: ContinuousClock.Instant?, finished: ContinuousClock.Instant?)>((nil, nil))
    private let onDemandInterval: Duration

    /// `loader` returns the current keys, or nil when the database can't say.
    init(loader: (@Sendable () -> [KeyRecord]?)? = nil, onDemandInterval: Duration = .seconds(1)) {
        self.loader = loader
        self.onDemandInterval = onDemandInterval
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
        let askedAt = ContinuousClock.now
        // Requests that meet an unknown key while a reload runs wait for it rather than fail.
        let reloaded = onDemand.withLock { state -> Bool in
            if let finished = state.finished, finished > askedAt { return true }
            if let started = state.started, askedAt - started < onDemandInterval { return false }
            state.started = ContinuousClock.now
            if let records = loader() { replace(with: records) }
            state.finished = ContinuousClock.now
            return true
        }
        return reloaded ? lookup(presented) : verdict
    }

    private func lookup(_ presented: [UInt8]) -> Verdict {
        guard let keys = table.withLock({ $0 }) else { return .unavailable }
        var match: KeyRecord?
        for record in keys where SHA256.constantTimeEquals(record.hash, presented) {
            match = record
        }
        guard let match else { return .unknown }
        return match.revoked ? .revoked(match) : .valid(match)
    }
}
