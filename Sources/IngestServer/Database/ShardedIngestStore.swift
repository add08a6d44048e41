import Foundation
import HTTPServer
import Postgres
import PushLedgerContract
import PushLedgerSupport
import Store
import Synchronization

/// The `IngestStore` of a sharded deployment: keys and the shard map from the directory
/// database, each app's events written to the shard that owns it, with pools of its own per
/// shard. Every write is a local transaction on one shard (the batch writer groups a batch by
/// shard first). A shard that does not answer fails only its own apps' requests (503) and is
/// tried again a second later; the other shards' apps go on.
///
/// A move (`pushledger apps move`) pauses an app by holding an exclusive advisory lock for it
/// on the source shard: a write takes the lock shared without waiting, so while the move holds
/// it the app's requests answer 503, and a write in progress is finished before the move goes
/// on. A shard records the apps moved away (`shard_departures`): a write that finds its app
/// there was routed by an old map, is refused with 503 and reloads the map.
///
/// Every batch applies the state it derives (installations, re-resolved sends) in its own
/// transaction, never deferred: nothing of an app waits on its old shard when it moves.
public final class ShardedIngestStore: IngestStore {
    /// The directory: keys, key uses, the map, the reconnect probe.
    private let directory: ConnectionPool
    private let directoryURL: String
    private let writerConnections: Int
    private let readConnections: Int
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var shards: [String: ShardPools] = [:]
        var placements: [String: String] = [:]
        var lastMapLoad: ContinuousClock.Instant?
        var keys: [KeyRecord]?
    }

    /// The pools of one shard and until when it counts as down.
    private final class ShardPools: Sendable {
        let name: String
        let url: String
        let writes: ConnectionPool
        let reads: ConnectionPool
        /// The shard's own writer: what it knows of a database (the partitions it has seen
        /// cover a day, the batch rows' type OIDs) holds for this shard alone.
        let writer = EventWriter()
        let downUntil = Mutex<ContinuousClock.Instant?>(nil)

        init(name: String, url: String, writers: Int, readers: Int) {
            self.name = name
            self.url = url
            writes = ConnectionPool(url: url, maxConnections: max(1, writers))
            reads = ConnectionPool(url: url, maxConnections: max(1, readers))
        }
    }

    /// Seconds a shard that failed is skipped before the next attempt.
    static let shardRetryInterval: Duration = .seconds(1)
    /// The advisory lock class of "an app's writes" (the second key is `hashtext(app_id)`),
    /// shared with `AppMove`.
    public static let writeLockClass: Int32 = ShardDirectory.writeLockClass

    /// `connections` per shard for the writers, `readConnections` per shard for feed reads and
    /// per directory for key reloads.
    public init(directoryURL: String, connections: Int, readConnections: Int, logger: Logger) {
        directory = ConnectionPool(url: directoryURL, maxConnections: max(1, readConnections))
        self.directoryURL = directoryURL
        writerConnections = connections
        self.readConnections = readConnections
        self.logger = logger
    }

    public func route(app: String) -> String? {
        state.withLock { $0.placements[app] } ?? "unplaced"
    }

    public func write(_ units: [IngestUnit]) throws(StoreError) -> [WriteOutcome] {
        try write(units, dryRun: false)
    }

    public func dryRun(_ units: [IngestUnit]) throws(StoreError) -> [WriteOutcome] {
        try write(units, dryRun: true)
    }

    private func write(_ units: [IngestUnit], dryRun: Bool) throws(StoreError) -> [WriteOutcome] {
        let apps = Array(Set(units.map(\.appID))).sorted()
        let shard = try owner(of: apps)
        return try onShard(shard, shard.writes) { connection throws -> [WriteOutcome] in
            try self.write(units, apps: apps, dryRun: dryRun, with: shard.writer, on: connection)
        }
    }

    private func write(
        _ units: [IngestUnit], apps: [String], dryRun: Bool, with writer: EventWriter, on connection: Connection
    ) throws -> [WriteOutcome] {
        let list = Self.arrayLiteral(apps)
        // Shared write locks first, then (a statement of its own, so its snapshot follows
        // the locks) the departures: a move that flipped before the locks were taken is seen.
        let locks = try connection.query(
            """
            select bool_and(pg_try_advisory_lock_shared(\(Self.writeLockClass), hashtext(app))) as held from \
            unnest(\(list)::text[]) as a(app)
            """
        )
        defer {
            if connection.isHealthy {
                _ = try? connection.query(
                    """
                    select pg_advisory_unlock_shared(\(Self.writeLockClass), hashtext(app)) from \
                    unnest(\(list)::text[]) as a(app)
                    """
                )
            }
        }
        guard try locks[0].decode("held", as: Bool.self) else { throw Refusal.paused(apps.joined(separator: ",")) }
        let departed: [String] = try connection.query(
            "select app_id from shard_departures where app_id = any(\(list)::text[])"
        ).map { try $0.decode(0) }
        guard departed.isEmpty else { throw Refusal.departed(departed.joined(separator: ",")) }
        return try writer.write(units, on: connection, dryRun: dryRun)
    }

    /// `values` as a Postgres text-array literal, each element quoted.
    static func arrayLiteral(_ values: [String]) -> String {
        let quoted = values.map { value in
            "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }

    /// Why a write was refused before it started: the app is paused for a move, or the map was old.
    private enum Refusal: Error {
        case paused(String)
        case departed(String)
    }

    public func ping() throws(StoreError) {
        try onDirectory { _ = try $0.query("select 1") }
    }

    /// The largest lag of the shards that answer: each shard has its own rollups and follower,
    /// and the alert is about the one furthest behind. Nil when no shard can say.
    public func rollupLag() throws(StoreError) -> Double? {
        let shards = state.withLock { Array($0.shards.values) }
        var lags: [Double] = []
        for shard in shards where !isDown(shard) {
            let lag = try? onShard(shard, shard.reads) { try PostgresIngestStore.rollupLag(on: $0) }
            if let lag { lags.append(lag) }
        }
        return lags.max()
    }

    /// A commit on every shard that is up; fails only when none commits.
    public func probeCommit() throws(StoreError) {
        let shards = state.withLock { Array($0.shards.values) }
        var lastError: StoreError?
        var committed = false
        for shard in shards where !isDown(shard) {
            do throws(StoreError) {
                try onShard(shard, shard.reads) { connection in
                    try connection.transaction {
                        _ = try $0.query("select pg_logical_emit_message(true, 'pushledger', 'commit probe')")
                    }
                }
                committed = true
            } catch {
                lastError = error
            }
        }
        if !committed, let lastError { throw lastError }
    }

    /// Keys from the directory; the shard map is read again with them. While the directory
    /// does not answer, the keys and map last read stay in use (writes need only the shards).
    public func loadKeys() throws(StoreError) -> [KeyRecord] {
        do throws(StoreError) {
            try loadMap()
            let keys = try onDirectory { try KeyRecord.active(on: $0) }
            state.withLock { $0.keys = keys }
            return keys
        } catch {
            guard error.isConnectionProblem, let keys = state.withLock({ $0.keys }) else { throw error }
            logger.warning(
                "directory unreachable, keeping the keys and shard map last read", ["error": error.description])
            return keys
        }
    }

    /// Keys live in the directory, so their changes are heard there.
    public func listenForKeyChanges() throws(StoreError) -> KeyChangeListener? {
        do {
            return try KeyChangeListener(url: directoryURL)
        } catch {
            throw StoreError(error)
        }
    }

    public func invalidTokens(appID: String, query: InvalidTokenFeed.Query) throws(StoreError) -> InvalidTokenFeed.Page
    {
        let shard = try owner(of: [appID])
        return try onShard(shard, shard.reads) { try InvalidTokenFeed().page(appID: appID, query: query, on: $0) }
    }

    public func recordKeyUse(_ uses: [(id: String, at: Date)]) throws(StoreError) {
        try onDirectory { try KeyRecord.recordUse(uses, on: $0) }
    }

    /// Reads the shard map; a shard whose URL changed gets new pools.
    private func loadMap() throws(StoreError) {
        let (shards, placements) = try onDirectory { connection in
            let directory = ShardDirectory()
            return (try directory.shards(on: connection), try directory.placements(on: connection))
        }
        state.withLock { state in
            var pools: [String: ShardPools] = [:]
            for shard in shards {
                if let existing = state.shards[shard.name], existing.url == shard.url {
                    pools[shard.name] = existing
                } else {
                    pools[shard.name] = ShardPools(
                        name: shard.name, url: shard.url, writers: writerConnections, readers: readConnections)
                }
            }
            state.shards = pools
            state.placements = placements
            state.lastMapLoad = .now
        }
    }

    /// Reads the map again unless it was read within the last second (after a refusal).
    private func reloadMapSoon() {
        let due = state.withLock { $0.lastMapLoad.map { ContinuousClock.now - $0 >= .seconds(1) } ?? true }
        if due { try? loadMap() }
    }

    /// The one shard that owns `apps` (the batch writer never mixes shards in a batch).
    private func owner(of apps: [String]) throws(StoreError) -> ShardPools {
        let found = state.withLock { state in
            apps.map { app in state.placements[app].flatMap { state.shards[$0] } }
        }
        guard let shard = found.first ?? nil, found.allSatisfy({ $0 === shard }) else {
            reloadMapSoon()
            throw StoreError(
                isConnectionProblem: true, description: "no shard is known for app \(apps.joined(separator: ","))",
                detail: "place the app with pushledger apps place")
        }
        guard !isDown(shard) else {
            throw StoreError(isConnectionProblem: true, description: "shard \(shard.name) is unreachable; retry later")
        }
        return shard
    }

    private func isDown(_ shard: ShardPools) -> Bool {
        shard.downUntil.withLock { until in until.map { ContinuousClock.now < $0 } ?? false }
    }

    /// Runs `body` on a connection of `shard`: a connection problem marks the shard down for a
    /// second and drops its idle connections; a pause or a departure is a 503 of that app alone.
    private func onShard<T>(
        _ shard: ShardPools, _ pool: ConnectionPool, _ body: (Connection) throws -> T
    ) throws(StoreError) -> T {
        do {
            return try pool.withConnection(body)
        } catch Refusal.paused(let apps) {
            throw StoreError(isConnectionProblem: true, description: "app \(apps) is paused for a move; retry later")
        } catch Refusal.departed(let apps) {
            reloadMapSoon()
            throw StoreError(
                isConnectionProblem: true, description: "app \(apps) has moved off shard \(shard.name); retry")
        } catch let error as PostgresError {
            if error.isConnectionProblem {
                let first = shard.downUntil.withLock { until in
                    defer { until = ContinuousClock.now + Self.shardRetryInterval }
                    return until == nil || ContinuousClock.now >= until!
                }
                if first { logger.warning("shard unreachable", ["shard": shard.name, "error": error.description]) }
                shard.writes.drain()
                shard.reads.drain()
            }
            throw StoreError(error)
        } catch {
            throw StoreError(
                isConnectionProblem: false, description: "database work failed", detail: String(describing: error))
        }
    }

    private func onDirectory<T>(_ body: (Connection) throws -> T) throws(StoreError) -> T {
        do {
            return try directory.withConnection(body)
        } catch let error as PostgresError {
            if error.isConnectionProblem { directory.drain() }
            throw StoreError(error)
        } catch {
            throw StoreError(
                isConnectionProblem: false, description: "directory work failed", detail: String(describing: error))
        }
    }
}

extension StoreError {
    /// A database error, classified for the HTTP answer.
    init(_ error: PostgresError) {
        self.init(
            isConnectionProblem: error.isConnectionProblem, isOutcomeUnknown: error.isOutcomeUnknown,
            sqlState: error.sqlState,
            description: error.description, detail: error.debugDescription)
    }
}

extension KeyRecord {
    /// The keys not revoked, as the verifier holds them.
    static func active(on connection: Connection) throws -> [KeyRecord] {
        try KeyStore().loadActiveKeys(on: connection).map { key in
            KeyRecord(
                id: key.id.uuidString.lowercased(), hash: key.hash, appID: key.appID, scope: key.scope.rawValue,
                revoked: false, expiresAt: key.expiresAt, rateLimit: key.rateLimit)
        }
    }

    /// Stores the keys' last uses (ids as `KeyRecord.id`).
    static func recordUse(_ uses: [(id: String, at: Date)], on connection: Connection) throws {
        try KeyStore().recordUse(
            uses.compactMap { use in UUID(uuidString: use.id).map { (id: $0, at: use.at) } }, on: connection)
    }
}

extension IngestUnit {
    /// The app whose rows the unit writes.
    var appID: String {
        switch self {
        case .telemetry(let validated, _): validated.envelope.appID
        case .sends(_, let app, _): app
        case .failedRequest(_, let appID, _, _, _, _, _): appID
        }
    }
}

extension IngestServer {
    /// `pushledger serve --directory-url`: every app's events to its shard, until SIGTERM/SIGINT.
    public static func run(
        config: IngestServerConfig, directoryURL: String, logger: Logger, version: String = "dev",
        started: (IngestServer) -> Void = { _ in }
    ) throws(HTTPServerError) {
        let store = ShardedIngestStore(
            directoryURL: directoryURL, connections: config.writerCount, readConnections: config.feedConcurrency + 1,
            logger: logger)
        try run(config: config, store: store, logger: logger, version: version, started: started)
    }
}
