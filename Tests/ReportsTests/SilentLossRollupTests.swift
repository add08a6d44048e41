import Foundation
import Postgres
import PushLedgerSupport
import Simulator
import TestSupport
import Testing

@testable import OutcomeEngine
@testable import Reports

/// `report silent-loss` from the rollups equals the outcome engine over the same window as of
/// the rollups' refresh, row for row, for every slicing.
@Suite("Silent loss from the rollups")
struct SilentLossRollupTests {
    /// The dimensions of the send itself and its slice (every combination of them is checked).
    static let sendDimensions: [ReportDimension] = [.channel, .platform, .appVersion, .campaign, .day, .provider]

    /// Every `--by` combination of the send's dimensions, and each v1.2 device-state dimension
    /// alone, with platform, with channel, and all of them with every send dimension (4,096
    /// combinations of all twelve would take minutes for no new case).
    static let slicings: [[ReportDimension]] = {
        let combinations = (0..<(1 << sendDimensions.count)).map { mask in
            sendDimensions.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
        }
        let device = ReportDimension.allCases.filter { !sendDimensions.contains($0) }
        return combinations + device.flatMap { [[$0], [.platform, $0], [.channel, $0]] } + [
            device, sendDimensions + device,
        ]
    }()

    /// The rollups' answer and the engine's as of the same time, equal row for row.
    private func expectEqual(
        _ connection: Connection, _ query: ReportQuery, by: [ReportDimension],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> SilentLossReport {
        let rollups = try SilentLossReport.run(connection: connection, query: query, by: by, source: .rollups)
        #expect(rollups.answer.isRollups, sourceLocation: sourceLocation)
        let engine = try SilentLossReport.run(connection: connection, query: rollups.query, by: by, source: .engine)
        #expect(
            rollups.rows == engine.rows, "by \(by.map(\.rawValue)), [\(query.from), \(query.to))",
            sourceLocation: sourceLocation)
        return rollups
    }

    @Test func simulatedFleetEveryWindowAndSlicing() throws {
        let (connection, truth) = try SimulatorTruthTests.simulate(seed: 23) { config in
            config.startMs -= 86_400_000  // one more day before
            config.days = 4
        }
        _ = try ReportRollups.refresh(connection: connection)
        let start = Date(timeIntervalSince1970: Double(truth.window.from) / 1000)
        let day: TimeInterval = 86_400
        let windows: [(from: Date, to: Date, slicings: [[ReportDimension]])] = [
            (start, start + 4 * day, Self.slicings),  // whole days
            (start + 5 * 3600, start + 2 * day + 7 * 3600, Self.slicings),  // partial first and last days
            (start + day, start + 2 * day, Self.slicings.filter { $0.count <= 1 || $0.count >= 6 }),
            (start + 1800, Date(), Self.slicings.filter { $0.count <= 1 || $0.count >= 6 }),  // up to the refresh
        ]
        for window in windows {
            let query = ReportQuery(app: truth.appID, from: window.from, to: window.to)
            for by in window.slicings { _ = try expectEqual(connection, query, by: by) }
        }
        let all = try expectEqual(connection, ReportQuery(app: truth.appID, from: start, to: start + 4 * day), by: [])
        #expect(all.rows.count == 1 && all.rows[0].counts.sends == truth.outcomesByDay.map(\.count).reduce(0, +))
        #expect(all.rows[0].counts.unattributed > 0)  // the fleet's uninstrumented slice (ios/5.1.0)
    }

    /// Instrumentation is judged over the whole window: a slice whose only receipt lies in the
    /// hours before the first whole day makes a whole day's send unconfirmed (the day's own
    /// rollup calls it unattributed), and the window's other hours are judged with the whole
    /// days' slices.
    @Test func instrumentationIsJudgedAcrossRollupDaysAndTheEnginesHours() throws {
        var fixture = try Fixture()
        let ios = Fixture.id(0x1a, 1), iosOther = Fixture.id(0x1a, 2), android = Fixture.id(0x1a, 3),
            androidOther = Fixture.id(0x1a, 4)
        for (id, platform) in [(ios, "ios"), (iosOther, "ios"), (android, "android"), (androidOther, "android")] {
            try fixture.installation(id, platform: platform, firstSeen: Fixture.time(2026, 11, 1))
            if platform == "ios" {
                try fixture.snapshot(
                    id, at: Fixture.time(2026, 11, 1), platform: "ios", authorization: "authorized",
                    alert: "enabled", lockScreen: "enabled", center: "enabled")
            } else {
                try fixture.snapshot(
                    id, at: Fixture.time(2026, 11, 1), platform: "android", enabled: true,
                    channels: [.init(id: "orders", importance: 3)])
            }
        }
        // ios/5.2.0 reports a receipt only in the window's first hours (Monday evening) ...
        let confirmed = Fixture.id(0x40, 1)
        try fixture.send(
            notification: confirmed, installation: iosOther, at: Fixture.time(2026, 11, 9, 19), provider: "apns")
        try fixture.receipt(confirmed, installation: iosOther, at: Fixture.time(2026, 11, 9, 20), platform: "ios")
        // ... so its sends of a whole day (Tuesday) and of the last hours (Thursday night) are unconfirmed.
        try fixture.send(
            notification: Fixture.id(0x40, 2), installation: ios, at: Fixture.time(2026, 11, 10, 10), provider: "apns")
        try fixture.send(
            notification: Fixture.id(0x40, 3), installation: ios, at: Fixture.time(2026, 11, 12, 2), provider: "apns")
        // android/5.2.0 reports one on Wednesday only: its Monday-evening send is unconfirmed too.
        let androidConfirmed = Fixture.id(0x40, 4)
        try fixture.send(notification: androidConfirmed, installation: androidOther, at: Fixture.time(2026, 11, 11, 9))
        try fixture.receipt(
            androidConfirmed, installation: androidOther, at: Fixture.time(2026, 11, 11, 9, 5), platform: "android")
        try fixture.send(notification: Fixture.id(0x40, 5), installation: android, at: Fixture.time(2026, 11, 9, 21))
        let connection = fixture.connection
        _ = try ReportRollups.refresh(connection: connection, asOf: Fixture.time(2026, 11, 14))
        let daily: Int = try connection.query(
            "select coalesce(sum(unattributed), 0)::int as n from send_rollups_daily where day = '2026-11-10'")[0]
            .decode("n")
        #expect(daily == 1)  // Tuesday alone saw no ios receipt

        let query = ReportQuery(
            app: Fixture.app, from: Fixture.time(2026, 11, 9, 18), to: Fixture.time(2026, 11, 12, 6))
        let total = try expectEqual(connection, query, by: [])
        #expect(total.rows.map(\.counts.unconfirmed) == [3] && total.rows.map(\.counts.unattributed) == [0])
        #expect(total.rows.map(\.counts.received) == [2] && total.query.asOf == Fixture.time(2026, 11, 14))
        for by in Self.slicings { _ = try expectEqual(connection, query, by: by) }
        // The same days without the evening: nothing instruments ios, Tuesday's send is unattributed.
        let days = try expectEqual(
            connection, ReportQuery(app: Fixture.app, from: Fixture.time(2026, 11, 10), to: Fixture.time(2026, 11, 12)),
            by: [.platform])
        #expect(days.rows.first { $0.values[.platform] == "ios" }?.counts.unattributed == 1)
    }

    /// Auto answers from the rollups where they are exact and says who answered; `--source
    /// rollups` refuses the other windows.
    @Test func autoPicksTheRollupsOnlyWhereTheyAreExact() throws {
        let data = try OutcomeFixture()
        let connection = data.fixture.connection
        let status = try ReportRollups.refresh(connection: connection, asOf: OutcomeFixture.asOf)
        let whole = ReportQuery(
            app: Fixture.app, from: OutcomeFixture.from, to: OutcomeFixture.to, asOf: Fixture.time(2026, 11, 20))
        let auto = try SilentLossReport.run(connection: connection, query: whole, by: [.channel], source: .auto)
        #expect(auto.answer.isRollups && auto.query.asOf == status.asOf)
        #expect(
            try auto.rendered(.table).contains("answered from the rollups as of 2026-11-11T12:00:00.000Z (refreshed "))
        let json = try parse(try auto.rendered(.json))
        #expect(
            json["source"] as? String == "rollups" && json["rollups_as_of"] as? String == "2026-11-11T12:00:00.000Z")
        // Only inputs dated after the refresh's as_of wait in the queue (they count once it passes them).
        let waiting: Int = try connection.query(
            "select count(*)::int as n from rollup_inputs where due_at > \(OutcomeFixture.asOf)")[0].decode("n")
        #expect(json["pending_inputs"] as? Int == waiting)

        let engine = try SilentLossReport.run(connection: connection, query: whole, by: [.channel])
        #expect(engine.answer == .engine(reason: nil) && engine.query.asOf == whole.asOf)
        #expect(try parse(try engine.rendered(.json))["source"] as? String == "engine")

        var otherWindow = whole
        otherWindow.confirmationWindow = 3600
        let hours = ReportQuery(app: Fixture.app, from: Fixture.time(2026, 11, 9, 1), to: Fixture.time(2026, 11, 10, 1))
        for (query, reason) in [
            (otherWindow, "the rollups use the default confirmation window of 24 h"),
            (hours, "no whole UTC day in the window"),
        ] {
            let report = try SilentLossReport.run(connection: connection, query: query, source: .auto)
            #expect(report.answer == .engine(reason: reason) && report.query.asOf == query.asOf)
            let refused = #expect(throws: ReportError.self) {
                try SilentLossReport.run(connection: connection, query: query, source: .rollups)
            }
            #expect(refused?.description == "--source rollups: \(reason)")
        }
        // The on-call window ends a confirmation window before the rollups' as_of.
        let quick = try SilentLossReport.quick(
            connection: connection, app: Fixture.app, since: 2 * 86_400, by: [.channel], source: .auto)
        #expect(quick.answer.isRollups && quick.query.to == OutcomeFixture.asOf - 86_400)
        #expect(quick.quickText.contains("answered from the rollups as of 2026-11-11T12:00:00.000Z"))
        let direct = try SilentLossReport.quick(
            connection: connection, app: Fixture.app, since: 2 * 86_400, asOf: OutcomeFixture.asOf,
            by: [.channel])
        #expect(quick.rows == direct.rows && !quick.rows.isEmpty)
    }
}
