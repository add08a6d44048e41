import Foundation
import IngestServer
import Postgres
import PushLedgerRules
import PushLedgerSupport
import Simulator
import TestSupport
import Testing

@testable import OutcomeEngine
@testable import Reports

/// The silent-loss, rejections and prompt-timing reports over a simulated fleet posted through
/// the real ingest server, held against the simulator's truth, count for count.
@Suite("Reports equal the simulator's truth")
struct SimulatorTruthTests {
    static let telemetryKey = "pl_t_simulated-fleet-telemetry-key-0123456789"
    static let sendsKey = "pl_s_simulated-fleet-sends-key-0123456789abcd"

    /// Posts a fleet of `installs` for `days` through a server on a fresh database (or `url`'s).
    static func simulate(
        seed: UInt64, url: String? = nil, _ configure: (inout SimulationConfig) -> Void = { _ in }
    ) throws
        -> (Connection, Truth)
    {
        let url = try url ?? TestDatabase.fresh(prefix: "sim")
        let connection = try Connection.connect(url: url)
        var simulation = SimulationConfig.endingBefore(
            nowMs: Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000, days: 3)
        // small enough that the whole suite stays well under a minute on 2 cores; one flush per
        // installation keeps the request count (the main cost) down without changing any count
        simulation.installs = 200
        simulation.flushDays = 3
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
        config.http.threads = 2
        config.writerCount = 2
        let server = IngestServer(
            config: config, store: PostgresIngestStore(url: url, connections: 3),
            logger: Logger(component: "serve", minimumLevel: .error) { _ in }, version: "test")
        try server.start()
        defer { server.stop() }
        var options = SimulationRunner.Options(
            baseURL: "http://127.0.0.1:\(server.port)", telemetryKey: telemetryKey, sendsKey: sendsKey)
        options.progress = false
        options.threads = 2
        let (_, truth) = try SimulationRunner.run(simulation, options: options)
        return (connection, truth)
    }

    static func query(_ truth: Truth) -> ReportQuery {
        ReportQuery(
            app: truth.appID, from: Date(timeIntervalSince1970: Double(truth.window.from) / 1000),
            to: Date(timeIntervalSince1970: Double(truth.window.to) / 1000),
            asOf: Date(timeIntervalSince1970: Double(truth.window.asOf) / 1000),
            confirmationWindow: Double(truth.window.confirmationWindowMs) / 1000)
    }

    /// The reports of `truth`'s window from `source`. A fleet whose senders report their kinds of
    /// push (``SimulationConfig/pushMix``) is compared per push type as well, one with web
    /// installations per browser and push service.
    static func check(_ connection: Connection, _ truth: Truth, source: ReportSource = .engine) throws {
        let query = query(truth)
        let byPushType = truth.outcomesByDay.contains { $0.pushType != nil }
        let byBrowser = truth.outcomesByDay.contains { $0.platform == .web }
        // Silent loss: every outcome count per (day, channel, platform, app_version[, push_type]
        // [, browser, push_service]).
        let report = try SilentLossReport.run(
            connection: connection, query: query,
            by: [.day, .channel, .platform, .appVersion] + (byPushType ? [.pushType] : [])
                + (byBrowser ? try ReportDimension.parseList("browser,push_service") : []),
            source: source)
        if source == .rollups { #expect(report.answer.isRollups) }
        var expected: [String: [String: Int]] = [:]
        for row in truth.outcomesByDay where row.count > 0 {
            let key =
                [row.day, row.channel, row.platform.rawValue, row.appVersion ?? "∅"]
                + (byPushType ? [row.pushType ?? "∅"] : [])
                + (byBrowser ? [row.browser?.rawValue ?? "∅", row.pushService?.rawValue ?? "∅"] : [])
            expected[key.joined(separator: "|"), default: [:]][row.outcome.rawValue, default: 0] += row.count
        }
        var actual: [String: [String: Int]] = [:]
        for row in report.rows {
            let key = report.dimensions.map { (row.values[$0] ?? nil) ?? "∅" }.joined(separator: "|")
            let counts = Dictionary(
                uniqueKeysWithValues: SendOutcome.allCases.map { ($0.rawValue, row.counts.count(of: $0)) }
            ).filter { $0.value > 0 }
            actual[key] = counts
        }
        #expect(actual == expected, "\(source)")
        #expect(report.rows.map(\.counts.sends).reduce(0, +) == truth.outcomesByDay.map(\.count).reduce(0, +))

        // Causes of the unconfirmed sends and latency buckets of the received and opened ones, per
        // (day, channel, platform, app_version).
        var expectedCauses: [String: [String: Int]] = [:]
        for row in truth.causes where row.count > 0 {
            expectedCauses["\(row.day)|\(row.channel)|\(row.platform.rawValue)|\(row.appVersion ?? "∅")", default: [:]][
                row.cause.rawValue] = row.count
        }
        for row in truth.latency where row.count > 0 {
            expectedCauses["\(row.day)|\(row.channel)|\(row.platform.rawValue)|\(row.appVersion ?? "∅")", default: [:]][
                row.bucket.rawValue] = row.count
        }
        // per (day, channel, platform, app_version): the push types of a row summed
        var actualCauses: [String: [String: Int]] = [:]
        for row in report.rows {
            let key = [ReportDimension.day, .channel, .platform, .appVersion].map { (row.values[$0] ?? nil) ?? "∅" }
                .joined(separator: "|")
            let causes = try #require(row.counts.causes)
            var counts: [String: Int] = [:]
            for cause in UnconfirmedCause.allCases where causes.count(cause) > 0 {
                counts[cause.rawValue, default: 0] += causes.count(cause)
            }
            for bucket in LatencyBucket.allCases where causes.count(bucket) > 0 {
                counts[bucket.rawValue, default: 0] += causes.count(bucket)
            }
            if !counts.isEmpty { actualCauses[key, default: [:]].merge(counts, uniquingKeysWith: +) }
        }
        #expect(actualCauses == expectedCauses, "\(source)")

        // Rejections and token hygiene.
        let rejections = try RejectionsReport.run(connection: connection, query: query)
        #expect(
            rejections.reasons.map {
                "\($0.provider) \($0.status) \($0.reason ?? "∅") \($0.reasonClass) \($0.rejected)"
            }.sorted()
                == truth.rejections.filter { $0.count > 0 }
                .map {
                    "\($0.provider.rawValue) \($0.status) \($0.reason ?? "∅") \($0.rejectionClass.rawValue) \($0.count)"
                }.sorted())
        #expect(rejections.providers.map(\.tokenInvalid).reduce(0, +) == truth.tokenInvalid)
        #expect(rejections.providers.map(\.toInvalidToken).reduce(0, +) == truth.sendsToKnownInvalidTokens)

        // Prompt timing, intent-to-treat.
        let prompts = try PromptTimingReport.run(
            connection: connection, query: query,
            options: .init(experiment: truth.experiment, includeSends: false))
        #expect(prompts.mode == .intentToTreat)
        #expect(
            prompts.cohorts.map {
                """
                \($0.name) \($0.installs) \($0.prompted) \($0.optIn.numerator) \($0.provisional.numerator) \
                \($0.reach.numerator) \($0.grantedWithoutPrompt)
                """
            }
                == truth.cohorts.filter { $0.installs > 0 }.sorted { $0.variant < $1.variant }
                .map {
                    """
                    \($0.variant) \($0.installs) \($0.prompted) \($0.optedIn) \($0.provisional) \($0.reach) \
                    \($0.grantedWithoutPrompt)
                    """
                })
    }

    /// How often the hard cases of metrics.md occur in the stored data, so a passing check is known
    /// to have covered them.
    struct Coverage {
        /// Sends whose as-of snapshot said blocked while a receipt proved delivery (rules 2–3 first).
        var contradicted = 0
        /// Android sends whose as-of snapshot has no state for the send's channel.
        var channelMissing = 0
        /// Sends without an installation_id, resolved through the token.
        var resolvedByToken = 0
    }

    static func coverage(_ connection: Connection, _ truth: Truth) throws -> Coverage {
        let q = query(truth)
        let rows = try connection.query(
            """
            select count(*) filter (where (c.display_state = 'cannot_display' or c.channel_blocked)
                                      and (c.opened or c.received_displayed)) as contradicted,
                   count(*) filter (where c.platform = 'android' and c.snapshot_event_id is not null
                                      and not exists (select 1 from channel_states s
                                                       where s.app_id = c.app_id and s.snapshot_event_id = \
            c.snapshot_event_id
                                                         and s.channel_id = c.channel)) as channel_missing,
                   count(*) filter (where c.resolved_by = 'token') as by_token
              from pushledger_classified_sends(\(truth.appID), \(q.from), \(q.to), \(q.asOf)) c
            """)
        return Coverage(
            contradicted: try rows[0].decode("contradicted", as: Int.self),
            channelMissing: try rows[0].decode("channel_missing", as: Int.self),
            resolvedByToken: try rows[0].decode("by_token", as: Int.self))
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func defaultFleet(seed: UInt64) throws {
        let (connection, truth) = try Self.simulate(seed: seed)
        #expect(truth.count(.unattributed) > 0 && truth.count(.pending) > 0 && truth.count(.blockedApp) > 0)
        let coverage = try Self.coverage(connection, truth)
        #expect(coverage.channelMissing > 0)
        #expect(coverage.resolvedByToken > 0)
        try Self.check(connection, truth)
    }

    /// Posts a fleet (as ``simulate(seed:url:_:)``) to a database whose rollups were refreshed
    /// before anything arrived, so that the next refresh is incremental.
    static func simulateAfterARefresh(
        seed: UInt64, _ configure: (inout SimulationConfig) -> Void
    ) throws
        -> (Connection, Truth)
    {
        let url = try TestDatabase.fresh(prefix: "sim")
        let connection = try Connection.connect(url: url)
        _ = try ReportRollups.refresh(connection: connection, asOf: Date().addingTimeInterval(-2 * 86_400))
        let (_, truth) = try simulate(seed: seed, url: url, configure)
        return (connection, truth)
    }

    /// The truth equals the engine's report, the rollups' after an incremental refresh (every
    /// send arrived after the last one; `refreshed` looks at them first) and after a rebuild
    /// (`rollup --full`).
    static func checkThroughRefreshes(
        _ connection: Connection, _ truth: Truth, refreshed: () throws -> Void = {}
    ) throws {
        try check(connection, truth)
        let asOf = query(truth).asOf
        #expect(!(try ReportRollups.refresh(connection: connection, asOf: asOf)).full)
        try refreshed()
        try check(connection, truth, source: .rollups)
        _ = try ReportRollups.refresh(connection: connection, asOf: asOf, full: true)
        try check(connection, truth, source: .rollups)
    }

    /// Senders that report their kinds of push: the truth per push type, through refreshes.
    @Test func pushKindsPerPushTypeAfterRefreshesAndARebuild() throws {
        // a mature fleet whose new version (the one that records background receipts) rolls out
        // on the first reported day and stops reporting receipts on the second: a slice with
        // background receipts, one without, and a day on which the first reports none
        let (connection, truth) = try Self.simulateAfterARefresh(seed: 21) {
            $0.pushMix = true
            $0.makeSteady(warmupDays: 11)
            $0.rolloutDay = 11
            $0.injections = [.receiptsOutage(day: 1, appVersion: "5.2.0")]
        }
        #expect(truth.count(.unconfirmable) > 0 && truth.count(.unconfirmed) > 0)
        #expect(truth.outcomesByDay.contains { $0.pushType == "background" && $0.outcome == .unconfirmable })
        #expect(truth.outcomesByDay.contains { $0.pushType == "background" && $0.outcome == .received })
        #expect(truth.backgroundInstrumentedSlices == ["ios/5.2.0"])
        try Self.checkThroughRefreshes(connection, truth) {
            // a day's rollups hold background pushes unconfirmable for want of that day's background
            // receipt, which the window (whose slice reports one) judges again
            let widened = try connection.query(
                """
                select coalesce(sum(unconfirmable_uninstrumented + unconfirmable_unattributed), 0)::int8 as n
                  from send_rollups_daily where platform = 'ios' and app_version = '5.2.0'
                """)[0].decode("n", as: Int.self)
            #expect(widened > 0)
        }
    }

    /// Web installations beside the phones (their senders report their kinds of push too): the
    /// truth per browser and push service, through refreshes; Web Push 404 and 410 count as
    /// invalid tokens, and web sends have their causes.
    @Test func webInstallationsPerBrowserAfterRefreshesAndARebuild() throws {
        let (connection, truth) = try Self.simulateAfterARefresh(seed: 31) {
            $0.webShare = 0.5
            $0.pushMix = true
            // a mature fleet (subscribers of long standing) whose permissions are revoked and
            // subscriptions expire often enough to be seen in three days
            $0.makeSteady(warmupDays: 11)
            $0.web.revokeDailyChance = 0.05
            $0.web.subscriptionExpiryDailyChance = 0.05
        }
        let web = truth.outcomesByDay.filter { $0.platform == .web }
        #expect(Set(web.compactMap(\.browser)).isSuperset(of: [.chrome, .safari]))
        #expect(Set(web.compactMap(\.pushService)).count >= 3)
        #expect(truth.count(.received, platform: .web) > 0 && truth.count(.unconfirmed, platform: .web) > 0)
        #expect(truth.count(.blockedApp, platform: .web) > 0 && truth.count(.opened, platform: .web) > 0)
        #expect(truth.rejections.contains { $0.provider == .webpush && $0.rejectionClass == .tokenInvalid })
        try Self.checkThroughRefreshes(connection, truth)
    }

    @Test func staleSnapshotsContradictedByReceipts() throws {
        // Many revocations and Android API 33+ installs granting at a prompt: the device changes
        // between snapshots, so receipts meet snapshots that still say blocked.
        let (connection, truth) = try Self.simulate(seed: 13) {
            $0.revocationRate = 0.5
            $0.androidSdkMix = [(33, 0.5), (34, 0.5)]
        }
        #expect(try Self.coverage(connection, truth).contradicted > 0)
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
