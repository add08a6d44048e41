import CommandLineParsing
import Foundation
import Metrics
import OutcomeEngine
import Postgres
import PushLedgerSupport
import Reports
import TableRendering

/// `pushledger rollup`: brings the daily rollups up to date, once or continuously (`--follow`).
struct RollupCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "rollup",
            summary: "Bring the daily rollups up to date with what arrived since the last refresh (once, or --follow)",
            discussion: """
                By default only the sends the new data affects are judged again and the rollups move by the \
                difference; --full recomputes every send and every rollup from scratch (after a repair or a change of \
                definitions). The summary says how many sends were reclassified. The only command that refreshes the \
                rollups the reports read; run it on the primary. A pass classifies most of the days it recomputes \
                whole on a second connection meanwhile (with --follow, a pass that starts once ingest paused or \
                ended; docs/rollups.md "Two connections").
                --follow keeps running and refreshes every half --freshness (back to back when a pass takes longer), \
                so the rollups stay within --freshness of what was committed, and sooner once inputs wait and none \
                has arrived for a tenth of that period (ingest paused or ended): one follower leads at a time across \
                processes (a Postgres advisory lock; a second one waits as a hot spare), a pass is one transaction (a \
                pass cut short by a kill or a lost connection leaves nothing), a lost database is retried with \
                backoff, and SIGTERM or SIGINT finishes the pass in progress and exits 0 (a second signal abandons \
                it). Each pass and each change of state is a log line on stderr; --metrics-listen serves \
                pushledger_rollup_lag_seconds and friends for Prometheus. Run it as the systemd unit \
                deploy/systemd/pushledger-rollup-follow.service (docs/operations/README.md); SELECT * FROM \
                pushledger_rollup_status() shows the lag too.
                """)
    }

    @Option(help: "Output format (without --follow)", default: .text, choices: [.text, .json])
    var format: TableFormat

    @Flag(help: "Recompute everything from scratch instead of what arrived since the last refresh")
    var full: Bool

    @Flag(help: "Keep running: refresh continuously within --freshness, until SIGTERM/SIGINT")
    var follow: Bool

    @Option(
        help: "With --follow: how far behind what was committed the rollups may fall", default: TimeSpan(seconds: 60))
    var freshness: TimeSpan

    @Option(
        help: "With --follow: serve Prometheus /metrics here (plain HTTP)",
        environment: "PUSHLEDGER_ROLLUP_METRICS_LISTEN",
        placeholder: "host:port")
    var metricsListen: String?

    @OptionGroup var shards: ShardChoice

    func validate() throws(OptionError) {
        if follow {
            guard !full else { throw OptionError("--full rebuilds once: it cannot be combined with --follow") }
            guard freshness.timeInterval >= 1 else { throw OptionError("--freshness must be at least 1s") }
        } else {
            guard metricsListen == nil else { throw OptionError("--metrics-listen needs --follow") }
        }
    }

    func run(_ context: CommandContext) throws -> Int32 {
        if follow { return try runFollower(context) }
        let (full, json) = (full, format == .json)
        return try context.eachShard { context in
            let connection = try context.connect()
            return try ReportCommand.report(context) {
                let summary = try ReportRollups.refresh(
                    connection: connection, full: full, secondConnection: SecondConnection { try context.connect() })
                return json ? summary.json.jsonText(pretty: true) : summary.text
            }
        }
    }

    /// `--follow`: runs the follower until a signal, with its metrics endpoint when asked.
    func runFollower(_ context: CommandContext) throws -> Int32 {
        let freshness = self.freshness.timeInterval
        guard context.directoryURL == nil else {
            throw OptionError("--follow runs on one database: start one follower per shard with --database-url")
        }
        let url = context.databaseURL
        let logger = context.logger.named("rollup")
        let follower = RollupFollower(freshness: freshness, logger: logger) { try Connection.connect(url: url) }
        var endpoint: MetricsEndpoint?
        if let metricsListen {
            let address = try ServeCommand.address(metricsListen, option: $metricsListen)
            do {
                endpoint = try MetricsEndpoint(host: address.host, port: address.port) {
                    follower.metrics
                }
            } catch {
                throw CommandFailure(message: error.description)
            }
            logger.info("metrics listening", ["address": "\(address.host):\(endpoint!.port)"])
        }
        let watcher = SignalWatcher(signals: [SIGTERM, SIGINT]) { signal, count in
            if count == 1 {
                logger.info("signal received, stopping after the pass in progress", ["signal": "\(signal)"])
                follower.stop()
            } else {
                // Closing the connection rolls the pass back: nothing of it is applied.
                logger.info("second signal, abandoning the pass in progress", ["signal": "\(signal)"])
                exit(.success)
            }
        }
        follower.run()
        watcher.cancel()
        endpoint?.stop()
        return 0
    }
}
