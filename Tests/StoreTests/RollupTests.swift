import Foundation
import Postgres
import PushLedgerContract
import Reports
import Store
import Testing

@testable import OutcomeEngine

/// Daily rollups: refreshed only for dirty or still-pending days, and always equal to the
/// engine's direct classification of that day.
@Suite struct RollupTests {
    typealias F = Fixture
    let db: StoreDatabase
    init() throws { db = try StoreDatabase() }

    private let nov9 = "2026-11-09"
    private let nov10 = "2026-11-10"

    private func refresh(asOf hours: Double) throws -> [String] {
        try ReportRollups.refresh(connection: db.connection, asOf: F.time(hours)).days.map { day in
            #expect(day.app == F.app)
            return day.day
        }.sorted()
    }

    /// Rows of the rollups that differ from grouping the engine's output for that day (both ways).
    private func mismatches(day: String, asOf hours: Double) throws -> Int {
        try db.value(
            """
            with direct as (
                select platform, channel, app_version, campaign, provider, count(*)::int as sends,
                       count(*) filter (where outcome not in ('rejected', 'pending'))::int as accepted,
                       count(*) filter (where outcome = 'rejected')::int as rejected,
                       count(*) filter (where outcome = 'opened')::int as opened,
                       count(*) filter (where outcome = 'received')::int as received,
                       count(*) filter (where outcome = 'pending')::int as pending,
                       count(*) filter (where outcome = 'blocked_app')::int as blocked_app,
                       count(*) filter (where outcome = 'blocked_channel')::int as blocked_channel,
                       count(*) filter (where outcome = 'unattributed')::int as unattributed,
                       count(*) filter (where outcome = 'unconfirmed')::int as unconfirmed,
                       count(*) filter (where token_invalid)::int as token_invalid,
                       count(*) filter (where to_invalid_token)::int as to_invalid_token
                  from pushledger_classified_sends(\(F.app), \(day)::date::timestamp at time zone 'UTC',
                                                   (\(day)::date + 1)::timestamp at time zone 'UTC', \(F.time(hours)))
                 group by 1, 2, 3, 4, 5
            ), rolled as (
                select platform, channel, app_version, campaign, provider, sends, accepted, rejected, opened, received,
                       pending, blocked_app, blocked_channel, unattributed, unconfirmed, token_invalid, to_invalid_token
                  from send_rollups_daily where app_id = \(F.app) and day = \(day)::date
            )
            select ((select count(*) from (select * from direct except select * from rolled) a)
                  + (select count(*) from (select * from rolled except select * from direct) b))::int
            """)
    }

    private func rollupSum(_ column: String, day: String) throws -> Int {
        try db.value(
            "select coalesce(sum(\(identifier: column)), 0)::int from send_rollups_daily where day = \(day)::date")
    }

    private func seed() throws {
        let android = F.envelope(installation: F.installation(1))
        _ = try db.write(
            F.telemetry(
                android,
                [
                    F.event(900, at: -40, F.androidSettings(enabled: true)),
                    F.event(901, at: -30, F.received(1)), F.event(902, at: -5, F.received(11)),
                ]),
            F.telemetry(
                F.envelope(installation: F.installation(2)), [F.event(903, at: -40, F.androidSettings(enabled: false))])
        )
        _ = try db.write(
            F.sends([
                F.send(1, notification: 1, at: -30, installation: F.installation(1)),
                F.send(2, notification: 2, at: -30, installation: F.installation(1), campaign: nil),
                F.send(3, notification: 3, at: -30, installation: F.installation(2), status: 503),
                F.send(11, notification: 11, at: -5, installation: F.installation(1)),
                F.send(12, notification: 12, at: -5, installation: F.installation(2), channel: "promo"),
                F.send(13, notification: 13, at: -5, token: "unknown", provider: .apns),
            ]))
    }

    // Monthly and daily partitions alike.
    @Test(arguments: PartitionGranularity.allCases) func refreshComputesDirtyDaysAndMatchesTheEngine(
        _ partitions: PartitionGranularity
    ) throws {
        try partitions.store(on: db.connection)
        try seed()
        #expect(try refresh(asOf: 100) == [nov9, nov10])
        #expect(try mismatches(day: nov9, asOf: 100) == 0)
        #expect(try mismatches(day: nov10, asOf: 100) == 0)
        #expect(try rollupSum("sends", day: nov9) == 3)
        #expect(try rollupSum("unconfirmed", day: nov9) == 1)
        #expect(try rollupSum("rejected", day: nov9) == 1)
        #expect(
            try db.value("select sum(rejected)::int from send_rejections_daily where reason_class = 'provider_error'")
                == 1)
        // Nothing changed: nothing to do.
        #expect(try refresh(asOf: 100).isEmpty)
    }

    // Monthly and daily partitions alike.
    @Test(arguments: PartitionGranularity.allCases) func aLateReceiptRefreshesOnlyTheDayOfItsSend(
        _ partitions: PartitionGranularity
    ) throws {
        try partitions.store(on: db.connection)
        try seed()
        _ = try refresh(asOf: 100)
        let before = try db.value(
            "select max(refreshed_at) from send_rollups_daily where day = \(nov10)::date", as: Date.self)
        // Send 2 (Nov 9) is confirmed days later (Nov 12 for the device, still Nov 9 sends).
        _ = try db.write(
            F.telemetry(F.envelope(installation: F.installation(1)), [F.event(904, at: 40, F.received(2))]))
        #expect(try refresh(asOf: 100) == [nov9, "2026-11-12"])
        #expect(try rollupSum("received", day: nov9) == 2)
        #expect(try mismatches(day: nov9, asOf: 100) == 0)
        #expect(
            try db.value("select max(refreshed_at) from send_rollups_daily where day = \(nov10)::date", as: Date.self)
                == before)
    }

    // Monthly and daily partitions alike.
    @Test(arguments: PartitionGranularity.allCases) func aLateSnapshotRefreshesTheDaysOfTheInstallationsLaterSends(
        _ partitions: PartitionGranularity
    ) throws {
        try partitions.store(on: db.connection)
        try seed()
        _ = try refresh(asOf: 100)
        // Installation 2's new snapshot at hour -20 changes its Nov 10 send only.
        _ = try db.write(
            F.telemetry(
                F.envelope(installation: F.installation(2)), [F.event(905, at: -20, F.androidSettings(enabled: true))]))
        #expect(try refresh(asOf: 100) == [nov10])
        #expect(try mismatches(day: nov10, asOf: 100) == 0)
        #expect(try rollupSum("blocked_app", day: nov10) == 0)
    }

    /// Token history changes other days' sends: a back-filled invalidating result makes a later
    /// send "to a token already known invalid", and a late registration of the token undoes it.
    // Monthly and daily partitions alike.
    @Test(arguments: PartitionGranularity.allCases) func lateTokenHistoryRefreshesTheDaysOfLaterSendsToTheToken(
        _ partitions: PartitionGranularity
    ) throws {
        try partitions.store(on: db.connection)
        let nov11 = "2026-11-11"
        let owner = F.installation(7)
        _ = try db.write(
            F.sends([
                F.send(31, notification: 31, at: 30, token: "tok-z", installation: owner),
                F.send(32, notification: 32, at: 30, token: "tok-q", installation: owner),
            ]))
        #expect(try refresh(asOf: 100) == [nov11])
        #expect(try rollupSum("to_invalid_token", day: nov11) == 0)

        _ = try db.write(
            F.sends([
                F.send(
                    30, notification: 30, at: -30, token: "tok-z", installation: owner,
                    status: 404, reason: "UNREGISTERED")
            ]))
        #expect(try refresh(asOf: 100) == [nov9, nov11])
        #expect(try rollupSum("to_invalid_token", day: nov11) == 1)
        #expect(try mismatches(day: nov11, asOf: 100) == 0)

        // The app registered the token again (Nov 10) after the Nov 9 result: the Nov 11 send
        // went to a live token after all. Only the send's day is re-opened.
        _ = try db.write(F.telemetry(F.envelope(installation: owner), [F.event(906, at: 0, F.token("tok-z"))]))
        #expect(try refresh(asOf: 100) == [nov11])
        #expect(try rollupSum("to_invalid_token", day: nov11) == 0)
        #expect(try mismatches(day: nov11, asOf: 100) == 0)

        // A registration of a token with no invalidating result changes nothing and re-opens nothing.
        _ = try db.write(F.telemetry(F.envelope(installation: owner), [F.event(907, at: 1, F.token("tok-q"))]))
        #expect(try refresh(asOf: 100).isEmpty)
    }

    /// Consecutive dirty days are classified in one pass, each still its own window: a slice
    /// that reported receipts on Nov 10 only is not instrumented on Nov 9.
    // Monthly and daily partitions alike.
    @Test(arguments: PartitionGranularity.allCases) func aRunOfDaysKeepsEachDayItsOwnWindow(
        _ partitions: PartitionGranularity
    ) throws {
        try partitions.store(on: db.connection)
        let ios = F.envelope(installation: F.installation(5), platform: .ios, appVersion: "7.0")
        _ = try db.write(
            F.telemetry(
                ios,
                [
                    F.event(920, at: -40, .notificationSettings(SettingsSnapshot(authorizationStatus: .authorized))),
                    F.event(921, at: -5, F.received(99)),
                ]))
        _ = try db.write(
            F.sends([
                F.send(41, notification: 41, at: -30, installation: F.installation(5), provider: .apns),
                F.send(42, notification: 42, at: -5, installation: F.installation(5), provider: .apns),
            ]))
        #expect(try refresh(asOf: 100) == [nov9, nov10])
        #expect(try mismatches(day: nov9, asOf: 100) == 0)
        #expect(try mismatches(day: nov10, asOf: 100) == 0)
        #expect(try rollupSum("unattributed", day: nov9) == 1)
        #expect(try rollupSum("unattributed_uninstrumented", day: nov9) == 1)
        #expect(try rollupSum("unconfirmed", day: nov10) == 1)
    }

    /// Dirty (app, day)s become runs of consecutive days, at most 7 days each.
    // Monthly and daily partitions alike.
    @Test(arguments: PartitionGranularity.allCases) func dirtyDaysAreGroupedInRunsOfAtMostAWeek(
        _ partitions: PartitionGranularity
    ) throws {
        try partitions.store(on: db.connection)
        let runs: [String] = try db.connection.query(
            """
            select app_id || ' ' || first_day || ' ' || last_day as run
              from pushledger_day_runs(array['a', 'a', 'a', 'b', 'a', 'a', 'a', 'a', 'a', 'a', 'a'],
                                       array['2026-01-01', '2026-01-02', '2026-01-04', '2026-01-01', '2026-01-05', \
            '2026-01-06',
                                             '2026-01-07', '2026-01-08', '2026-01-09', '2026-01-10', \
            '2026-01-10']::date[])
            """
        ).map { try $0.decode("run") }
        #expect(
            runs == [
                "a 2026-01-01 2026-01-02", "a 2026-01-04 2026-01-08", "a 2026-01-09 2026-01-10",
                "b 2026-01-01 2026-01-01",
            ])
        let none: Int = try db.value("select count(*)::int from pushledger_day_runs(null, null)")
        #expect(none == 0)
    }

    // Monthly and daily partitions alike.
    @Test(arguments: PartitionGranularity.allCases) func pendingDaysAreReevaluatedUntilTheirWindowPassed(
        _ partitions: PartitionGranularity
    ) throws {
        try partitions.store(on: db.connection)
        try seed()
        #expect(try refresh(asOf: 0) == [nov9, nov10])
        #expect(try rollupSum("pending", day: nov10) == 2)
        #expect(try mismatches(day: nov10, asOf: 0) == 0)
        // Nothing new was written, but Nov 10 still had pending sends.
        #expect(try refresh(asOf: 100) == [nov10])
        #expect(try rollupSum("pending", day: nov10) == 0)
        #expect(try mismatches(day: nov10, asOf: 100) == 0)
        #expect(try refresh(asOf: 100).isEmpty)
    }

    @Test func theReaderRoleMayReadRollupsButNotKeys() throws {
        let canRead: Bool = try db.value(
            "select has_table_privilege('pushledger_reader', 'send_rollups_daily', 'select')")
        let canReadKeys: Bool = try db.value("select has_table_privilege('pushledger_reader', 'api_keys', 'select')")
        let canWrite: Bool = try db.value("select has_table_privilege('pushledger_reader', 'sends', 'insert')")
        #expect(canRead && !canReadKeys && !canWrite)
    }
}
