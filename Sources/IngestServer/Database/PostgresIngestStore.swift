import Foundation
import HTTPServer
import Postgres
import PushLedgerContract
import PushLedgerSupport
import Store

/// The production `IngestStore`: two pools of libpq connections, `Store.EventWriter` for the
/// batches and `Store.KeyStore` for the key table. The writers' pool serves only writes, so
/// feed reads, key reloads and probes (the reads' pool) never hold back a batch.
public final class PostgresIngestStore: IngestStore {
    private let pool: ConnectionPool
    private let reads: ConnectionPool
    /// The readiness probe's own connection: a probe waiting on a commit holds no writer's and
    /// no feed read's.
    private let probePool: ConnectionPool
    private let writer = EventWriter()
    private let url: String

    /// `connections`: one per writer thread; `readConnections`: feed reads at once plus one
    /// for the maintenance loop (keys, last uses). The commit probe has one more of its own.
    public init(url: String, connections: Int, readConnections: Int = 1) {
        self.url = url
        pool = ConnectionPool(url: url, maxConnections: max(1, connections))
        reads = ConnectionPool(url: url, maxConnections: max(1, readConnections))
        probePool = ConnectionPool(url: url, maxConnections: 1)
    }

    public func write(_ units: [IngestUnit]) throws(StoreError) -> [WriteOutcome] {
        try withConnection { try writer.write(units, on: $0) }
    }

    public var defersDerived: Bool { true }

    public func write(_ units: [IngestUnit], deferringDerived: Bool) throws(StoreError) -> [WriteOutcome] {
        try withConnection { try writer.write(units, on: $0, deferDerived: deferringDerived) }
    }

    /// On the writers' pool: it runs on a writer thread between batches.
    public func applyDerived() throws(StoreError) -> Int {
        try withConnection { try writer.applyDerived(on: $0) }
    }

    public func wentIdle() throws(StoreError) -> Int {
        try withConnection { try writer.wentIdle(on: $0) }
    }

    public func dryRun(_ units: [IngestUnit]) throws(StoreError) -> [WriteOutcome] {
        try withConnection { try writer.write(units, on: $0, dryRun: true) }
    }

    public func ping() throws(StoreError) {
        try withConnection(reads) { _ = try $0.query("select 1") }
    }

    /// A transactional WAL message (`pg_logical_emit_message`, no table touched) makes the
    /// transaction one that wrote WAL, so its COMMIT waits for the synchronous standby exactly
    /// like an ingest batch's. (A transaction that only took an id, `pg_current_xact_id()`,
    /// would not wait: PostgreSQL skips the wait when nothing but the commit record is written.)
    /// On a standby it fails (25006): not writable.
    public func probeCommit() throws(StoreError) {
        try withConnection(probePool) { connection in
            try connection.transaction {
                _ = try $0.query("select pg_logical_emit_message(true, 'pushledger', 'commit probe')")
            }
        }
    }

    /// On the reads' pool, so a scrape never waits for a writer.
    public func rollupLag() throws(StoreError) -> Double? {
        try withConnection(reads) { try Self.rollupLag(on: $0) }
    }

    /// `pushledger_rollup_status()`'s lag on one database (a shard's too).
    static func rollupLag(on connection: Connection) throws -> Double? {
        try connection.query("select lag_seconds from pushledger_rollup_status()").first?.decode(
            "lag_seconds", as: Double.self)
    }

    public func loadKeys() throws(StoreError) -> [KeyRecord] {
        try withConnection(reads) { connection in
            try KeyRecord.active(on: connection)
        }
    }

    public func listenForKeyChanges() throws(StoreError) -> KeyChangeListener? {
        do {
            return try KeyChangeListener(url: url)
        } catch {
            throw StoreError(error)
        }
    }

    public func invalidTokens(appID: String, query: InvalidTokenFeed.Query) throws(StoreError) -> InvalidTokenFeed.Page
    {
        try withConnection(reads) { try InvalidTokenFeed().page(appID: appID, query: query, on: $0) }
    }

    public func recordKeyUse(_ uses: [(id: String, at: Date)]) throws(StoreError) {
        try withConnection(reads) { try KeyRecord.recordUse(uses, on: $0) }
    }

    /// Runs `body` on a pooled connection; a connection problem also drops the idle ones, which
    /// are likely broken the same way (the database restarted).
    private func withConnection<T>(
        _ pool: ConnectionPool? = nil, _ body: (Connection) throws -> T
    ) throws(StoreError) -> T {
        let pool = pool ?? self.pool
        do {
            return try pool.withConnection(body)
        } catch let error as PostgresError {
            if error.isConnectionProblem {
                for pool in [self.pool, reads, probePool] { pool.drain() }
            }
            throw StoreError(error)
        } catch {
            throw StoreError(
                isConnectionProblem: false, description: "database work failed", detail: String(describing: error))
        }
    }
}

extension IngestServer {
    /// `pushledger serve`: runs against the database at `databaseURL` until SIGTERM/SIGINT.
    public static func run(
        config: IngestServerConfig, databaseURL: String, logger: Logger, version: String = "dev",
        started: (IngestServer) -> Void = { _ in }
    ) throws(HTTPServerError) {
        let store = PostgresIngestStore(
            url: databaseURL, connections: config.writerCount, readConnections: config.feedConcurrency + 1)
        try run(config: config, store: store, logger: logger, version: version, started: started)
    }
}
