import PushLedgerCore
import Synchronization

/// The in-memory key table, reloaded from the database every few seconds so that checking a
/// key never waits for Postgres.
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

    /// Replaces the table.
    func replace(with keys: [KeyRecord]) {
        table.withLock { $0 = keys }
    }

    var isLoaded: Bool { table.withLock { $0 != nil } }

    /// Looks a presented key up by its SHA-256. Every stored hash is compared in constant time
    /// and the scan never stops early, so timing says nothing about how close a guess came.
    func verify(_ key: String) -> Verdict {
        let presented = SHA256.hash(Array(key.utf8))
        guard let keys = table.withLock({ $0 }) else { return .unavailable }
        var match: KeyRecord?
        for record in keys where SHA256.constantTimeEquals(record.hash, presented) {
            match = record
        }
        guard let match else { return .unknown }
        return match.revoked ? .revoked(match) : .valid(match)
    }
}
