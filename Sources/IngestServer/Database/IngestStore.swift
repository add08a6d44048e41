import Foundation
import PushLedgerContract
import Store

/// The database as the ingest server sees it. The production one is `PostgresIngestStore`;
/// tests may put a failing one in front of it.
public protocol IngestStore: Sendable {
    /// Writes `units` in one transaction and returns one outcome per unit, in order, after the
    /// commit. On error nothing of the batch is stored.
    func write(_ units: [IngestUnit]) throws(StoreError) -> [WriteOutcome]
    /// `write`, leaving the state the batch derives (installations, re-resolved sends) queued
    /// for ``applyDerived()``: for a writer with more requests waiting.
    func write(_ units: [IngestUnit], deferringDerived: Bool) throws(StoreError) -> [WriteOutcome]
    /// Whether `write(_:deferringDerived:)` defers (else it writes everything in the batch).
    var defersDerived: Bool { get }
    /// Applies the derived state deferred writes queued, in one transaction of its own;
    /// returns how many batches' it applied.
    func applyDerived() throws(StoreError) -> Int
    /// `applyDerived`, announcing in the same transaction that ingest went idle (the writers'
    /// queue stayed empty): a rollup follower then starts its pass at once.
    func wentIdle() throws(StoreError) -> Int
    /// What `write` would return, computed by the same statements in a transaction that is
    /// rolled back: nothing is stored (no events, failed events or de-duplication ids).
    func dryRun(_ units: [IngestUnit]) throws(StoreError) -> [WriteOutcome]
    /// Checks that the database answers (reconnect probe).
    func ping() throws(StoreError)
    /// Commits a transaction that writes WAL but no table: it returns once commits complete (on
    /// a primary that waits for a synchronous standby, once the standby confirms). Readiness
    /// times it.
    func probeCommit() throws(StoreError)
    /// The API keys not revoked, expired ones included.
    func loadKeys() throws(StoreError) -> [KeyRecord]
    /// A session of its own on the database holding the keys, hearing each key change as it
    /// commits; nil when this store cannot listen (the periodic reload alone keeps keys fresh).
    func listenForKeyChanges() throws(StoreError) -> KeyChangeListener?
    /// One page of an app's invalid-token feed (`GET /v1/tokens/invalid`).
    func invalidTokens(appID: String, query: InvalidTokenFeed.Query) throws(StoreError) -> InvalidTokenFeed.Page
    /// Stores when keys (by `KeyRecord.id`) were last used: the verifier's coarse flush.
    func recordKeyUse(_ uses: [(id: String, at: Date)]) throws(StoreError)
    /// Seconds the rollups are behind what was committed (`pushledger_rollup_status()`'s
    /// `lag_seconds`; 0: caught up); nil when the database cannot say.
    func rollupLag() throws(StoreError) -> Double?
    /// The database (shard) that holds `app`'s rows, when there are several: a batch is
    /// written per shard, and a connection problem of one shard fails its apps alone. Nil: one
    /// database holds every app.
    func route(app: String) -> String?
}

extension IngestStore {
    public func route(app: String) -> String? { nil }

    /// A store that does not defer writes all derived state in the batch's transaction.
    public func write(_ units: [IngestUnit], deferringDerived: Bool) throws(StoreError) -> [WriteOutcome] {
        try write(units)
    }

    public var defersDerived: Bool { false }

    public func applyDerived() throws(StoreError) -> Int { 0 }

    /// A store that does not defer has nothing to apply, and its followers wait out their
    /// settle interval instead of hearing that ingest went idle.
    public func wentIdle() throws(StoreError) -> Int { 0 }

    public func listenForKeyChanges() throws(StoreError) -> KeyChangeListener? { nil }

    /// A store that cannot commit on its own says so by ping alone.
    public func probeCommit() throws(StoreError) { try ping() }
}

/// A database failure, classified for the HTTP answer: unreachable → 503 (nothing stored, or
/// outcome unknown when the connection broke during COMMIT), else 500.
public struct StoreError: Error, CustomStringConvertible, CustomDebugStringConvertible {
    /// The server is unreachable, the connection broke, or the server is no longer the
    /// primary: retry later. Nothing was committed unless `isOutcomeUnknown`.
    public var isConnectionProblem: Bool
    /// The connection broke during COMMIT: the work may or may not be stored.
    public var isOutcomeUnknown: Bool
    /// SQLSTATE when the server reported one.
    public var sqlState: String?
    /// Safe to show: no SQL, no parameters.
    public var description: String
    /// For logs.
    public var debugDescription: String

    public init(
        isConnectionProblem: Bool, isOutcomeUnknown: Bool = false, sqlState: String? = nil, description: String,
        detail: String? = nil
    ) {
        self.isConnectionProblem = isConnectionProblem || isOutcomeUnknown
        self.isOutcomeUnknown = isOutcomeUnknown
        self.sqlState = sqlState
        self.description = description
        self.debugDescription = detail ?? description
    }
}

/// One API key as stored: only the SHA-256 of the key text is kept.
public struct KeyRecord: Sendable, Equatable {
    /// The key's row id, safe to log.
    public var id: String
    /// SHA-256 of the key text (32 bytes).
    public var hash: [UInt8]
    public var appID: String
    /// `telemetry` or `sends`.
    public var scope: String
    public var revoked: Bool
    /// From this moment the key is refused with `key_expired`; nil: never.
    public var expiresAt: Date?
    /// Events a second and burst for this key's token bucket; nil: no limit of its own.
    public var rateLimit: KeyRateLimit?

    public init(
        id: String, hash: [UInt8], appID: String, scope: String, revoked: Bool, expiresAt: Date? = nil,
        rateLimit: KeyRateLimit? = nil
    ) {
        self.id = id
        self.hash = hash
        self.appID = appID
        self.scope = scope
        self.revoked = revoked
        self.expiresAt = expiresAt
        self.rateLimit = rateLimit
    }
}
