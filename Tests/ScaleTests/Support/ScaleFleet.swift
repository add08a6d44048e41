import Foundation
import HTTPClient
import Postgres
import PushLedgerSupport
import Simulator
import TestSupport

/// A simulated fleet for the scale tests: its keys in a database, and the checks of what the
/// database holds against the simulator's truth.
struct ScaleFleet {
    static let telemetryKey = "pl_t_scale-fleet-telemetry-key-0123456789abc"
    static let sendsKey = "pl_s_scale-fleet-sends-key-0123456789abcdefg"

    var config: SimulationConfig
    var telemetryKey = Self.telemetryKey
    var sendsKey = Self.sendsKey

    /// `app` (default: the simulator's) gets keys of its own when given. The fleet's last event
    /// is `hoursAgo` hours before now.
    init(installs: Int, days: Int = 3, seed: UInt64, app: String? = nil, hoursAgo: Int64 = 1) {
        config = SimulationConfig.endingBefore(
            nowMs: Int64(Date().timeIntervalSince1970 * 1000) - hoursAgo * 3_600_000, days: days)
        if let app {
            config.appID = app
            telemetryKey = "pl_t_\(app)-telemetry-key-0123456789abcdef"
            sendsKey = "pl_s_\(app)-sends-key-0123456789abcdefghij"
        }
        config.installs = installs
        config.flushDays = days
        config.seed = seed
    }

    /// Inserts the fleet's two keys (telemetry and sends scope) into the database at `url`.
    func addKeys(_ connection: Connection) throws {
        for (secret, scope) in [(telemetryKey, "telemetry"), (sendsKey, "sends")] {
            try connection.execute(
                """
                insert into api_keys (id, app_id, scope, key_hash, key_prefix)
                values (\(UUID()), \(config.appID), \(scope), \(SHA256.hash(secret)), \(String(secret.prefix(8))))
                """)
        }
    }

    /// Posts the fleet to `baseURL` with a retry policy that outlasts an ingestor's restart.
    func post(to baseURL: String, threads: Int) throws -> (summary: RunSummary, truth: Truth) {
        var options = SimulationRunner.Options(baseURL: baseURL, telemetryKey: telemetryKey, sendsKey: sendsKey)
        options.progress = false
        options.threads = threads
        options.retry = RetryPolicy(maxAttempts: 40, baseDelay: 0.05, maxDelay: 0.5, maxRetryAfter: 0.5)
        return try SimulationRunner.run(config, options: options)
    }

    /// Events the de-duplication ledger holds for the fleet's app.
    func storedEvents(_ connection: Connection) throws -> Int {
        try connection.query("select count(*) from event_ids where app_id = \(config.appID)")[0].decode(0)
    }

    /// Outcome counts of the truth's window as the outcome engine classifies the stored sends.
    static func outcomes(_ connection: Connection, _ truth: Truth) throws -> [String: Int] {
        let w = truth.window
        func time(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }
        let rows = try connection.query(
            """
            select outcome, count(*)::int8 as n
              from pushledger_classified_sends(\(truth.appID), \(time(w.from)), \(time(w.to)), \(time(w.asOf)),
                                               make_interval(secs => \(Double(w.confirmationWindowMs) / 1000)))
             group by outcome
            """)
        var counts: [String: Int] = [:]
        for row in rows { counts[try row.decode("outcome")] = try row.decode("n") }
        return counts
    }

    /// The truth's outcome counts summed over days and slices.
    static func outcomes(_ truth: Truth) -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in truth.outcomesByDay where row.count > 0 { counts[row.outcome.rawValue, default: 0] += row.count }
        return counts
    }
}
