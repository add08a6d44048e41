import Foundation
import HTTPServer
import PushLedgerSupport
import Synchronization

/// The `pushledger serve` service: HTTP on libmicrohttpd in front of a bounded queue of
/// validated requests that writer threads commit to Postgres in batches.
///
/// `start()` returns once the port is bound; `stop()` drains gracefully. `run` does both
/// around SIGTERM/SIGINT for the CLI.
public final class IngestServer: Sendable {
    private let config: IngestServerConfig
    private let store: any IngestStore
    private let logger: Logger
    private let keys: KeyVerifier
    private let keyChanges: KeyChangeWatcher
    private let health = DatabaseHealth()
    private let queue: IngestQueue
    private let metrics: ServerMetrics
    let service: IngestService
    /// The public listener (the ingest API; everything without `config.admin`).
    private let listener: HTTPListener
    /// `/metrics`, `/healthz`, `/readyz` on `config.admin`.
    private let admin: HTTPListener?
    private let maintenance = Mutex<PeriodicTask?>(nil)
    private let commitProbe: CommitProbe
    private let probing = Mutex<PeriodicTask?>(nil)
    private let lastKeyLoad = Mutex<ContinuousClock.Instant?>(nil)
    private let stopped = Atomic<Bool>(false)
    private let probeFailing = Atomic<Bool>(false)

    /// `version` shows in `pushledger_build_info`.
    public init(config: IngestServerConfig, store: any IngestStore, logger: Logger, version: String = "dev") {
        self.config = config
        self.store = store
        self.logger = logger
        let keys = KeyVerifier(loader: { try? store.loadKeys() })
        self.keys = keys
        keyChanges = KeyChangeWatcher(
            store: store, keys: keys, logger: logger, retryInterval: .seconds(config.reconnectInterval))
        let metrics = ServerMetrics(version: version)
        self.metrics = metrics
        let writer = BatchWriter(
            store: store, health: health, metrics: metrics, logger: logger,
            derived: DerivedStateSchedule(enabled: config.deferDerivedState, limit: config.derivedStateBatches))
        queue = IngestQueue(
            capacity: config.queueCapacity, share: config.appQueueShare, maxBytes: config.queueBytes,
            maxBatch: config.maxUnitsPerBatch,
            maxEvents: config.maxEventsPerBatch, writers: config.writerCount,
            appWriters: config.appWriterLimit, write: { writer.write($0, waited: $1) }, idle: writer.wentIdle,
            idleAfter: config.writerIdleSeconds)
        commitProbe = CommitProbe(store: store, health: health, bound: .seconds(config.commitBound), logger: logger)
        let service = IngestService(
            config: config, keys: keys, queue: queue, health: health, commitProbe: commitProbe, metrics: metrics,
            logger: logger,
            feed: { (app, query) throws(StoreError) in try store.invalidTokens(appID: app, query: query) })
        self.service = service
        listener = HTTPListener(handler: ListenerRoutes(service, routes: config.admin == nil ? .all : .ingest))
        admin = config.admin.map { _ in HTTPListener(handler: ListenerRoutes(service, routes: .operations)) }
        metrics.registerGauges(
            queue: queue, health: health, commitProbe: commitProbe, listeners: listeners, keys: keys,
            keyChanges: keyChanges
        ) {
            do throws(StoreError) {
                return try store.rollupLag()
            } catch {
                metrics.recordDatabaseError(error)
                logger.debug("rollup lag not read", ["error": error.description])
                return nil
            }
        }
    }

    /// The public listener and the admin one, if any.
    private var listeners: [HTTPListener] { [listener] + (admin.map { [$0] } ?? []) }

    /// The port listened on (the bound one when the config asked for 0).
    public var port: UInt16 { listener.port }

    /// The admin listener's port, when there is one.
    public var adminPort: UInt16? { admin?.port }

    /// True when `/readyz` says ready: Postgres reachable, commits completing within the bound,
    /// keys loaded, queue not full.
    public var isReady: Bool { service.isReady }

    /// Reads the TLS files (a bad one starts nothing), probes the database and loads the keys
    /// (a failure leaves the server up but not ready), then starts listening and the
    /// maintenance loop.
    public func start() throws(HTTPServerError) {
        let tls: TLSCredentials?
        do {
            tls = try config.tls.map { files throws(TLSError) in try TLSCredentials.load(files) }
        } catch {
            throw HTTPServerError(description: error.description)
        }
        signal(SIGPIPE, SIG_IGN)
        queue.start()
        service.validators.start()
        service.feedWorkers.start()
        let probe = commitProbe
        probing.withLock {
            $0 = PeriodicTask(name: "pushledger-commit-probe", interval: config.commitProbeInterval) { probe.probe() }
        }
        // Probes once and reads the key table: ready at once when the database is.
        maintain()
        do {
            try listener.start(host: config.host, port: config.port, limits: config.http, tls: tls)
        } catch {
            probing.withLock { $0 }?.stop()
            throw error
        }
        if let admin, let address = config.admin {
            do {
                try admin.start(host: address.host, port: address.port, limits: config.http, tls: nil)
            } catch {
                listener.stop()
                probing.withLock { $0 }?.stop()
                throw error
            }
            logger.info("admin listening", ["address": "\(address.host):\(admin.port)"])
        }
        let task = PeriodicTask(name: "pushledger-maintenance", interval: config.reconnectInterval) { [self] in
            maintain()
        }
        maintenance.withLock { $0 = task }
        keyChanges.start()
        logger.info(
            "listening",
            [
                "address": "\(config.host):\(port)", "tls": tls == nil ? "off" : "on",
                "http_threads": "\(config.http.threads)",
                "writers": "\(config.writerCount)",
            ])
    }

    /// Reads `config.tls` again and serves new connections with it; connections open now finish
    /// on the old certificate. A file that cannot be used leaves the old certificate in place
    /// and logs an error. False when nothing was replaced.
    @discardableResult
    public func reloadCertificate() -> Bool {
        guard let files = config.tls else { return false }
        do throws(TLSError) {
            let tls = try TLSCredentials.load(files)
            do {
                try listener.replaceCredentials(tls)
            } catch {
                throw TLSError(description: error.description, detail: "")
            }
            logger.info("tls certificate reloaded", ["certificate": files.certificate])
            return true
        } catch {
            logger.error(
                "tls certificate not reloaded, the previous one stays",
                ["error": error.description, "detail": error.detail])
            return false
        }
    }

    /// Requests waiting for a writer.
    var queueDepth: Int { queue.depth }

    /// True while key changes are heard as they commit.
    var isListeningForKeyChanges: Bool { keyChanges.isListening }

    /// Reads of the key table for keys not in memory and announced changes, since start.
    var keyFreshReads: Int { keys.freshReads }

    /// Probes the database now if it was down, and reloads the key table now (key changes
    /// themselves are heard as they commit).
    public func refreshKeys() {
        lastKeyLoad.withLock { $0 = nil }
        maintain()
    }

    /// Graceful stop: not ready, stop accepting, answer every request in flight after its
    /// commit, then close. Safe to call twice.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        logger.info("stopping", ["in_flight": "\(listener.requestsInFlight)", "queued": "\(queue.depth)"])
        service.draining.store(true, ordering: .relaxed)
        listeners.forEach { $0.quiesce() }
        // Requests still uploading or waiting for a writer finish normally; the writers keep
        // running until the queue is empty, so every suspended connection gets resumed.
        while listeners.contains(where: { $0.requestsInFlight > 0 }) { usleep(5_000) }
        queue.drainAndStop()
        service.validators.drainAndStop()
        service.feedWorkers.drainAndStop()
        listeners.forEach { $0.stop() }
        maintenance.withLock { $0 }?.stop()
        probing.withLock { $0 }?.stop()
        keyChanges.stop()
        flushKeyUses(all: true)
        logger.info("stopped")
    }

    /// Stores the keys' last uses (coarse: see `KeyVerifier`); a failure keeps them for later.
    private func flushKeyUses(all: Bool = false) {
        let batch = keys.usesToFlush(all: all)
        guard !batch.isEmpty, health.isUp else { return }
        do {
            try store.recordKeyUse(batch)
            keys.flushed(batch)
        } catch {
            metrics.recordDatabaseError(error)
            logger.warning("key use not stored", ["error": error.description])
        }
    }

    /// Reconnect probe while the database is down; periodic key reload and last-use flush while
    /// it is up.
    private func maintain() {
        if !health.isUp {
            do {
                try store.ping()
                health.set(up: true)
                // Ready again only once a commit completes (a new primary may be waiting for its standby).
                let probes = commitProbe.probesFinished
                probing.withLock { $0 }?.wake()
                commitProbe.waitForProbe(after: probes)
                probeFailing.store(false, ordering: .relaxed)
                lastKeyLoad.withLock { $0 = nil }
                logger.info("database reachable")
            } catch {
                metrics.recordDatabaseError(error)
                // Once per outage at warning level; the probes that follow only at debug.
                let first = !probeFailing.exchange(true, ordering: .relaxed)
                logger.log(first ? .warning : .debug, "database unreachable", ["error": error.description])
                return
            }
        }
        flushKeyUses()
        let now = ContinuousClock.now
        let due = lastKeyLoad.withLock { last in last.map { now - $0 >= .seconds(config.keyRefreshInterval) } ?? true }
        guard due else { return }
        do {
            let records = try store.loadKeys()
            keys.replace(with: records)
            lastKeyLoad.withLock { $0 = now }
            logger.debug("keys loaded", ["count": "\(records.count)"])
        } catch {
            metrics.recordDatabaseError(error)
            if error.isConnectionProblem { health.set(up: false) }
            logger.warning("key reload failed", ["error": error.description])
        }
    }
}
