import HTTPServer
import Metrics
import PushLedgerContract
import Synchronization

/// The metrics `pushledger serve` exposes on `/metrics`. Label values come from closed sets
/// (routes, status codes, contract codes, SQLSTATEs), never from ids.
final class ServerMetrics: Sendable {
    let registry = MetricsRegistry()
    let httpRequests: CounterMetric
    let events: CounterMetric
    let rejectedEvents: CounterMetric
    let validEvents: CounterMetric
    let failedRequests: CounterMetric
    let batchUnits: HistogramMetric
    let batchEvents: HistogramMetric
    let commitSeconds: HistogramMetric
    let databaseErrors: CounterMetric
    let dryRunRequests: CounterMetric
    let throttled: CounterMetric
    /// The apps named in labels so far: at most `maxAppLabels`, later ones count as `_other`.
    private let appLabels = Mutex<Set<String>>([])
    /// Distinct app label values at most: a scrape stays small however many apps have keys.
    static let maxAppLabels = 100
    let batchSplits: CounterMetric
    let derivedDeferred: CounterMetric
    let derivedApplied: CounterMetric
    let quarantined: CounterMetric
    let failedEventsNotStored: CounterMetric

    private let version: String

    /// `version`: the build's version string (set by the CLI).
    init(version: String) {
        self.version = version
        httpRequests = registry.register(
            CounterMetric(
                "pushledger_http_requests_total", help: "HTTP requests answered, by endpoint and status.",
                labels: ["endpoint", "status"]))
        events = registry.register(
            CounterMetric(
                "pushledger_events_total",
                help: "Events received, by kind (telemetry or send) and result (accepted, duplicate, rejected).",
                labels: ["kind", "result"]))
        rejectedEvents = registry.register(
            CounterMetric(
                "pushledger_events_rejected_total",
                help: "Events rejected by validation, by kind and contract error code.",
                labels: ["kind", "code"]))
        // Series alerts rate over exist from the start (an absent series never reads 0).
        for kind in ["telemetry", "send"] {
            for result in ["accepted", "duplicate", "rejected"] { events.increment([kind, result], by: 0) }
        }
        validEvents = registry.register(
            CounterMetric(
                "pushledger_events_valid_total",
                help: "Valid events committed (stored or duplicate), by event type (`send` for sends).",
                labels: ["type"]))
        failedRequests = registry.register(
            CounterMetric(
                "pushledger_requests_failed_total",
                help: "Requests refused as a whole (400, 403, 413), by endpoint and code.",
                labels: ["endpoint", "code"]))
        batchUnits = registry.register(
            HistogramMetric(
                "pushledger_write_batch_requests", help: "Requests written per database transaction.",
                buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256]))
        batchEvents = registry.register(
            HistogramMetric(
                "pushledger_write_batch_events", help: "Events (valid and rejected) written per database transaction.",
                buckets: [1, 10, 100, 1_000, 5_000, 20_000, 100_000]))
        commitSeconds = registry.register(
            HistogramMetric(
                "pushledger_write_commit_duration_seconds", help: "Time to write and commit one batch.",
                buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]))
        dryRunRequests = registry.register(
            CounterMetric(
                "pushledger_dry_run_requests_total",
                help: "Requests with ?dry_run=true (validated, nothing stored), by endpoint and status.",
                labels: ["endpoint", "status"]))
        throttled = registry.register(
            CounterMetric(
                "pushledger_http_throttled_total",
                help:
                    """
                    Requests answered 429 for one app only, by app and reason (queue_share: the app's share of \
                    the queue was full; rate_limit: its key's rate limit). The first 100 apps throttled are \
                    named, later ones count as _other.
                    """,
                labels: ["app", "reason"]))
        batchSplits = registry.register(
            CounterMetric(
                "pushledger_write_batch_splits_total",
                help: "Batches the database refused and the writer split in halves.", labels: []))
        derivedDeferred = registry.register(
            CounterMetric(
                "pushledger_write_derived_deferred_total",
                help:
                    """
                    Batches written while more requests waited, whose installations and re-resolution of earlier \
                    sends were queued for later instead of applied before the answer.
                    """,
                labels: []))
        derivedApplied = registry.register(
            CounterMetric(
                "pushledger_write_derived_applied_total",
                help:
                    """
                    Deferred batches whose derived state the writers applied (a rollup pass or an erasure applies \
                    what waits first, so this may stay below the deferred count).
                    """,
                labels: []))
        quarantined = registry.register(
            CounterMetric(
                "pushledger_requests_quarantined_total",
                help:
                    """
                    Requests stored in the failed-event store because their valid unit could not be stored even \
                    alone (answered 400 unstorable).
                    """,
                labels: []))
        failedEventsNotStored = registry.register(
            CounterMetric(
                "pushledger_failed_requests_not_stored_total",
                help:
                    """
                    Refused requests answered without a failed-event row: over their key's rate limit or their \
                    app's queue share.
                    """,
                labels: ["reason"]))
        databaseErrors = registry.register(
            CounterMetric(
                "pushledger_database_errors_total",
                help: "Database errors, by SQLSTATE (`connection` when the server was unreachable).",
                labels: ["sqlstate"]))
    }

    /// The gauges, read at scrape time from the parts they describe.
    /// `rollupLag` is read at scrape time (one small query on the reads' pool): the gauge is left
    /// out while the database is down or cannot say, so an alert on it never sees a stale value.
    func registerGauges(
        queue: IngestQueue, health: DatabaseHealth, commitProbe: CommitProbe, listeners: [HTTPListener],
        keys: KeyVerifier? = nil, keyChanges: KeyChangeWatcher? = nil,
        rollupLag: @escaping @Sendable () -> Double? = { nil }
    ) {
        let capacity = Double(queue.capacity)
        _ = registry.register(
            GaugeMetric("pushledger_queue_depth", help: "Requests validated and waiting for a writer.") {
                Double(queue.depth)
            })
        _ = registry.register(
            GaugeMetric("pushledger_queue_capacity", help: "Requests the queue holds before answering 429.") {
                capacity
            })
        _ = registry.register(
            GaugeMetric("pushledger_database_up", help: "1 when Postgres answered the last probe.") {
                health.isUp ? 1 : 0
            })
        if let keys, let keyChanges {
            _ = registry.register(
                GaugeMetric(
                    "pushledger_key_changes_listening",
                    help: "1 while key changes are heard as they commit; 0: periodic key reloads alone."
                ) { keyChanges.isListening ? 1 : 0 })
            _ = registry.register(
                GaugeMetric(
                    "pushledger_key_fresh_reads",
                    help: "Reads of the key table since start for keys not in memory and announced changes."
                ) { Double(keys.freshReads) })
        }
        _ = registry.register(
            GaugeMetric(
                "pushledger_database_commits_complete",
                help: "1 when the last probe commit succeeded and none waits past the readiness bound."
            ) {
                commitProbe.commitsComplete ? 1 : 0
            })
        _ = registry.register(
            GaugeMetric("pushledger_http_requests_in_flight", help: "Requests received and not yet answered.") {
                Double(listeners.reduce(0) { $0 + $1.requestsInFlight })
            })
        _ = registry.register(
            GaugeMetric(
                "pushledger_http_slow_connections_closed",
                help:
                    """
                    Connections closed since start for missing the header deadline (`deadline`) or shed at the \
                    connection limit (`shed`).
                    """,
                labels: ["reason"]
            ) {
                let counts = listeners.map(\.slowConnections)
                return [
                    (["deadline"], Double(counts.reduce(0) { $0 + $1.deadline })),
                    (["shed"], Double(counts.reduce(0) { $0 + $1.shed })),
                ]
            })
        _ = registry.register(
            GaugeMetric(
                "pushledger_rollup_lag_seconds",
                help:
                    """
                    Age of the oldest committed input not yet rolled up (0: caught up), from \
                    pushledger_rollup_status().
                    """
            ) {
                guard health.isUp, let lag = rollupLag() else { return [] }
                return [([], lag)]
            })
        let labels = [version, HTTPDaemon.libraryVersion]
        _ = registry.register(
            GaugeMetric(
                "pushledger_build_info", help: "Build information; the value is always 1.",
                labels: ["version", "libmicrohttpd"]
            ) {
                [(labels, 1)]
            })
    }

    /// Counts a stored unit's events.
    /// `app` as a label value: the first `maxAppLabels` apps by name, later ones as `_other`.
    func appLabel(_ app: String) -> String {
        appLabels.withLock { known in
            if known.contains(app) { return app }
            guard known.count < Self.maxAppLabels else { return "_other" }
            known.insert(app)
            return app
        }
    }

    func recordStored(_ unit: IngestUnit, outcome: WriteOutcome) {
        let kind: String
        let rejections: [Rejection]
        switch unit {
        case .telemetry(let validated, _):
            kind = "telemetry"
            rejections = validated.rejections
            for event in validated.events { validEvents.increment([event.payload.typeName]) }
        case .sends(let validated, _, _):
            kind = "send"
            rejections = validated.rejections
            if !validated.sends.isEmpty { validEvents.increment(["send"], by: Double(validated.sends.count)) }
        case .failedRequest:
            return
        }
        events.increment([kind, "accepted"], by: Double(outcome.accepted))
        events.increment([kind, "duplicate"], by: Double(outcome.duplicates))
        events.increment([kind, "rejected"], by: Double(rejections.count))
        for rejection in rejections { rejectedEvents.increment([kind, rejection.code.rawValue]) }
    }

    /// Counts a database error by SQLSTATE, or as `connection` when the server was unreachable.
    func recordDatabaseError(_ error: StoreError) {
        databaseErrors.increment([error.isConnectionProblem ? "connection" : error.sqlState ?? "none"])
    }

    func render() -> String { registry.render() }
}

extension IngestUnit {
    /// Events in the unit, valid and rejected (1 for a failed request).
    var eventCount: Int {
        switch self {
        case .telemetry(let validated, _): validated.events.count + validated.rejections.count
        case .sends(let validated, _, _): validated.sends.count + validated.rejections.count
        case .failedRequest: 1
        }
    }
}
