import Metrics

extension RollupFollower {
    /// The follower's Prometheus metrics: the lag, what waits, the last pass, who leads.
    public var metrics: String {
        let snapshot = snapshot
        var families: [MetricFamily] = [
            .gauge(
                "pushledger_rollup_freshness_seconds",
                help: "The freshness target the follower refreshes within (--freshness).",
                [([], freshness)]),
            .gauge(
                "pushledger_rollup_follower_leading",
                help: "1 when this follower holds the lock and refreshes; 0 standing by or unreachable.",
                [([], snapshot.state == .leading ? 1 : 0)]),
            .counter(
                "pushledger_rollup_passes_total", help: "Refresh passes this follower completed.",
                [([], Double(snapshot.passes))]),
            .counter(
                "pushledger_rollup_failures_total",
                help: "Connections lost or passes failed (each retried with backoff).",
                [([], Double(snapshot.failures))]),
        ]
        if let lag = snapshot.lagSeconds(), let status = snapshot.status {
            families.append(
                .gauge(
                    "pushledger_rollup_lag_seconds",
                    help:
                        """
                        Age of the oldest committed input not yet rolled up (0: caught up), from \
                        pushledger_rollup_status().
                        """,
                    [([], lag)]))
            families.append(
                .gauge(
                    "pushledger_rollup_pending_inputs", help: "Queued input changes the next pass takes.",
                    [([], Double(status.pendingInputs))]))
            if let seconds = status.lastPassSeconds {
                families.append(
                    .gauge(
                        "pushledger_rollup_last_pass_seconds", help: "How long the last refresh's transaction ran.",
                        [([], seconds)]))
            }
        }
        return Prometheus.render(families)
    }
}
