// Compiled out until the ingest server (without its stand-in validators) and the simulator are on
// main: then delete this #if and its #endif. It passed in a scratch merge of server@175e35d (StandIns.swift
// removed) and simulator@3f0eeaa on 2026-11-30: 3 seeds + 2 configurations, counts equal to the truth.
#if PUSHLEDGER_SIMULATOR_TRUTH
import Foundation
import IngestServer
import Postgres
import PushLedgerCore
import Simulator
import Testing
import TestSupport
@testable import Reports

/// The silent-loss, rejections and prompt-timing reports over a simulated fleet posted through
/// the real ingest server, held against the simulator's truth, count for count.
@Suite("Reports equal the simulator's truth")
struct SimulatorTruthTests {
    static let telemetryKey = "pl_t_simulated-fleet-telemetry-key-0123456789"
    static let sendsKey = "pl_s_simulated-fleet-sends-key-0123456789abcd"

    /// Posts a fleet of `installs` for `days` through a server on a fresh database.
    static func simulate(seed: UInt64, _ configure: (inout SimulationConfig) -> Void = { _ in }) throws -> (Connection, Truth) {
        let url = try TestDatabase.fresh(prefix: "sim")
        let connection = try Connection.connect(url: url)
        var simulation = SimulationConfig.endingBefore(nowMs: Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000, days: 3)
        simulation.installs = 300
        simulation.seed = seed
        configure(&simulation)
        for (secret, scope) in [(telemetryKey, "telemetry"), (sendsKey, "sends")] {
            try connection.execute(
                """
                insert into api_keys (id, app_id, scope, key_hash, key_prefix)
                values (\(UUID()), \(simulation.appID), \(scope), \(SHA256.hash(secret)), \(String(secret.prefix(8))))
                """)
        }
        var config = IngestServerConfig()
        config.port = 0
        config.httpThreads = 2
        config.writerCount = 2
        let server = IngestServer(config: config, store: PostgresIngestStore(url: url, connections: 3),
                                  logger: Logger(component: "serve", minimumLevel: .error) { _ in }, version: "test")
        try server.start()
        defer { server.stop() }
        var options = SimulationRunner.Options(baseURL: "http://127.0.0.1:\(server.port)", telemetryKey: telemetryKey, sendsKey: sendsKey)
        options.progress = false
        options.threads = 2
        let (_, truth) = try SimulationRunner.run(simulation, options: options)
        return (connection, truth)
    }

    static func query(_ truth: Truth) -> ReportQuery {
        ReportQuery(app: truth.appID, from: Date(timeIntervalSince1970: Double(truth.window.from) / 1000),
                    to: Date(timeIntervalSince1970: Double(truth.window.to) / 1000),
                    asOf: Date(timeIntervalSince1970: Double(truth.window.asOf) / 1000),
                    confirmationWindow: Double(truth.window.confirmationWindowMs) / 1000)
    }

    static func check(_ connection: Connection, _ truth: Truth) throws {
        let query = query(truth)
        // Silent loss: every outcome count per (day, channel, platform, app_version).
        let report = try SilentLossReport.run(connection: connection, query: query, by: [.day, .channel, .platform, .appVersion])
        var expected: [String: [String: Int]] = [:]
        for row in truth.outcomesByDay where row.count > 0 {
            expected["\(row.day)|\(row.channel)|\(row.platform.rawValue)|\(row.appVersion ?? "∅")", default: [:]][row.outcome.rawValue, default: 0] += row.count
        }
        var actual: [String: [String: Int]] = [:]
        for row in report.rows {
            let key = [ReportDimension.day, .channel, .platform, .appVersion].map { (row.values[$0] ?? nil) ?? "∅" }.joined(separator: "|")
            let c = row.counts
            let counts = ["rejected": c.rejected, "pending": c.pending, "opened": c.opened, "received": c.received,
                          "blocked_app": c.blockedApp, "blocked_channel": c.blockedChannel, "unconfirmed": c.unconfirmed,
                          "unattributed": c.unattributed].filter { $0.value > 0 }
            actual[key] = counts
        }
        #expect(actual == expected)
        #expect(report.rows.map(\.counts.sends).reduce(0, +) == truth.outcomesByDay.map(\.count).reduce(0, +))

        // Rejections and token hygiene.
        let rejections = try RejectionsReport.run(connection: connection, query: query)
        #expect(rejections.reasons.map { "\($0.provider) \($0.status) \($0.reason ?? "∅") \($0.reasonClass) \($0.rejected)" }.sorted()
                == truth.rejections.filter { $0.count > 0 }
                    .map { "\($0.provider.rawValue) \($0.status) \($0.reason ?? "∅") \($0.rejectionClass.rawValue) \($0.count)" }.sorted())
        #expect(rejections.providers.map(\.tokenInvalid).reduce(0, +) == truth.tokenInvalid)
        #expect(rejections.providers.map(\.toInvalidToken).reduce(0, +) == truth.sendsToKnownInvalidTokens)

        // Prompt timing, intent-to-treat.
        let prompts = try PromptTimingReport.run(connection: connection, query: query,
                                                 options: .init(experiment: truth.experiment, includeSends: false))
        #expect(prompts.mode == .intentToTreat)
        #expect(prompts.cohorts.map { "\($0.name) \($0.installs) \($0.prompted) \($0.optIn.numerator) \($0.provisional.numerator) \($0.reach.numerator) \($0.grantedWithoutPrompt)" }
                == truth.cohorts.filter { $0.installs > 0 }.sorted { $0.variant < $1.variant }
                    .map { "\($0.variant) \($0.installs) \($0.prompted) \($0.optedIn) \($0.provisional) \($0.reach) \($0.grantedWithoutPrompt)" })
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func defaultFleet(seed: UInt64) throws {
        let (connection, truth) = try Self.simulate(seed: seed)
        #expect(truth.count(.unattributed) > 0 && truth.count(.pending) > 0 && truth.count(.blockedApp) > 0)
        try Self.check(connection, truth)
    }

    @Test func noReceiptsInstrumentedMeansUnattributedNotLost() throws {
        let (connection, truth) = try Self.simulate(seed: 11) { $0.receiptInstrumented = [] }
        #expect(truth.count(.unconfirmed) == 0)
        try Self.check(connection, truth)
    }

    @Test func skewedClocksRetriedBatchesTokenResolvedSendsAndBlockedChannels() throws {
        let (connection, truth) = try Self.simulate(seed: 12) {
            $0.skewedDeviceShare = 0.5
            $0.duplicateBatchShare = 0.2
            $0.tokenOnlyShare = 0.6
            $0.channels = $0.channels.map { channel in
                var channel = channel
                channel.blockRate = 0.35
                return channel
            }
        }
        #expect(truth.duplicateEventsPosted > 0)
        try Self.check(connection, truth)
    }
}
#endif
