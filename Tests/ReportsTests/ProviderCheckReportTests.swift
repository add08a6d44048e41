import Foundation
import Postgres
import PushLedgerSupport
import Store
import Testing

@testable import Reports

/// `report provider-check` on hand-built sends and imported FCM delivery data.
@Suite struct ProviderCheckReportTests {
    var fixture: Fixture

    init() throws { fixture = try Fixture() }

    static func entry(_ day: Int, label: String?, accepted: Int, delivered: Double, noDelay: Double? = nil) -> String {
        let labelField = label.map { #""analyticsLabel":"\#($0)","# } ?? ""
        let noDelayField = noDelay.map { #","deliveryPerformancePercents":{"deliveredNoDelay":\#($0)}"# } ?? ""
        return
            #"{"appId":"1:123:android:abc","date":{"year":2026,"month":11,"day":\#(day)},"#
            + #"\#(labelField)"data":{"countMessagesAccepted":"\#(accepted)","#
            + #""messageOutcomePercents":{"delivered":\#(delivered),"#
            + #""droppedAppForceStopped":1.5}\#(noDelayField)}}"#
    }

    func importPage(_ entries: [String]) throws -> [CivilDate] {
        let page = #"{"androidDeliveryData":[\#(entries.joined(separator: ","))],"nextPageToken":"x"}"#
        let parsed = try FCMDeliveryData.entries(in: Array(page.utf8), fcmAppID: "1:123:android:abc")
        return try FCMDeliveryData().store(
            parsed, app: Fixture.app, fcmAppID: "1:123:android:abc", on: fixture.connection)
    }

    /// In winter Los Angeles is UTC−8: 07:59 UTC on the 10th is still the 9th there, 08:01 is the 10th.
    @Test mutating func aLosAngelesDayCountsItsOwnSendsNotTheUTCDays() throws {
        let device = Fixture.id(0x1a, 1)
        try fixture.installation(device, platform: "android", firstSeen: Fixture.time(2026, 11, 1))
        try fixture.snapshot(device, at: Fixture.time(2026, 11, 1), platform: "android", enabled: true)
        let early = Fixture.id(0x40, 1), late = Fixture.id(0x40, 2), lateUnconfirmed = Fixture.id(0x40, 3)
        try fixture.send(notification: early, installation: device, at: Fixture.time(2026, 11, 10, 7, 59))
        try fixture.send(notification: late, installation: device, at: Fixture.time(2026, 11, 10, 8, 1))
        try fixture.send(
            notification: lateUnconfirmed, installation: device, at: Fixture.time(2026, 11, 10, 9, 0), campaign: "promo"
        )
        try fixture.send(
            notification: Fixture.id(0x40, 4), installation: device, at: Fixture.time(2026, 11, 10, 9, 30),
            provider: "apns")
        try fixture.receipt(early, installation: device, at: Fixture.time(2026, 11, 10, 8, 0), platform: "android")
        try fixture.receipt(late, installation: device, at: Fixture.time(2026, 11, 10, 8, 2), platform: "android")
        let days = try importPage([
            Self.entry(10, label: "promo", accepted: 1000, delivered: 90),
            Self.entry(10, label: nil, accepted: 3000, delivered: 97, noDelay: 80),
            Self.entry(12, label: nil, accepted: 10, delivered: 99),
        ])
        #expect(days.map(\.iso) == ["2026-11-10", "2026-11-12"])

        let report = try ProviderCheckReport.run(
            connection: fixture.connection, app: Fixture.app, from: CivilDate(year: 2026, month: 11, day: 9)!,
            to: CivilDate(year: 2026, month: 11, day: 13)!, byCampaign: false, asOf: Fixture.time(2026, 11, 20))
        #expect(report.rows.map(\.day.iso) == ["2026-11-09", "2026-11-10", "2026-11-12"])
        let ninth = report.rows[0], tenth = report.rows[1], twelfth = report.rows[2]
        #expect(
            ninth.devices?.sends == 1 && ninth.fcm == nil && ninth.gapPoints == nil, "the 07:59 UTC send is the 9th's")
        let weighted: Double = (90.0 * 1000 + 97.0 * 3000) / 4000
        #expect(
            tenth.devices?.sends == 2 && tenth.devices?.accepted == 2, "FCM sends only; the 08:01 and 09:00 UTC sends")
        #expect(tenth.fcm?.countMessagesAccepted == 4000)
        #expect(tenth.fcm?.deliveredPct == weighted)
        #expect(
            tenth.fcm?.percents.first { $0.name == "delivered_no_delay_pct" }?.value == 80,
            "weighted over the entries that carry it")
        #expect(tenth.gapPoints == weighted - 50)
        // The table shows the gap in points as computed: 95.25 % − 50 % is +45.2 pp (not ×100).
        let table = try report.rendered(.table)
        #expect(table.contains("+45.") && table.contains("pp") && !table.contains("+4525"), "\(table)")
        #expect(twelfth.devices == nil && twelfth.fcm?.countMessagesAccepted == 10 && twelfth.gapPoints == nil)

        let json = report.json
        let rows = json.objectValue?["rows"]?.arrayValue ?? []
        let tenthJSON = try #require(rows.dropFirst().first?.objectValue)
        #expect(tenthJSON["day"]?.stringValue == "2026-11-10")
        #expect(tenthJSON["confirmed_delivery_rate"]?.numberValue?.doubleValue == 0.5)
        #expect(tenthJSON["count_messages_accepted"]?.numberValue?.int64Value == 4000)
        #expect(tenthJSON.members.map(\.key).contains("gap_pp") && tenthJSON["campaign"] == nil)

        let byCampaign = try ProviderCheckReport.run(
            connection: fixture.connection, app: Fixture.app, from: CivilDate(year: 2026, month: 11, day: 10)!,
            to: CivilDate(year: 2026, month: 11, day: 11)!, byCampaign: true, asOf: Fixture.time(2026, 11, 20))
        let summary: [String] = byCampaign.rows.map { row in
            let fcm = row.fcm.map { String($0.countMessagesAccepted) } ?? "-"
            let sends = row.devices.map { String($0.sends) } ?? "-"
            return "\(row.campaign ?? "(none)") \(fcm) \(sends)"
        }
        #expect(summary == ["(none) 3000 -", "order_update - 1", "promo 1000 1"])
    }

    @Test mutating func reimportingADayReplacesItAndBadInputIsRefusedWhole() throws {
        _ = try importPage([
            Self.entry(10, label: nil, accepted: 100, delivered: 90),
            Self.entry(10, label: "x", accepted: 5, delivered: 50),
        ])
        _ = try importPage([Self.entry(10, label: nil, accepted: 200, delivered: 95)])
        let rows = try fixture.connection.query(
            "select analytics_label, entry #>> '{data,countMessagesAccepted}' as n from fcm_delivery_data")
        #expect(rows.count == 1)
        #expect(try rows[0].decode("n", as: String.self) == "200")
        #expect(throws: FCMDeliveryData.ImportError.self) {
            try FCMDeliveryData.entries(
                in: Array(
                    #"{"androidDeliveryData":[{"appId":"1:9:android:other","date":{"year":2026,"month":11,"day":1}}]}"#
                        .utf8), fcmAppID: "1:123:android:abc")
        }
        #expect(throws: FCMDeliveryData.ImportError.self) {
            try FCMDeliveryData.entries(
                in: Array(
                    #"{"androidDeliveryData":[{"appId":"1:123:android:abc","date":{"year":2026,"month":2,"day":30}}]}"#
                        .utf8), fcmAppID: "1:123:android:abc")
        }
    }

    @Test mutating func theWeeklyReportShowsTheCrossCheckWhenFCMDataExistsAndSaysHowToImportOtherwise() throws {
        let device = Fixture.id(0x1a, 1)
        try fixture.installation(device, platform: "android", firstSeen: Fixture.time(2026, 11, 1))
        try fixture.snapshot(device, at: Fixture.time(2026, 11, 1), platform: "android", enabled: true)
        try fixture.send(notification: Fixture.id(0x40, 1), installation: device, at: Fixture.time(2026, 11, 10, 12))
        let week = try ISOWeek(parsing: "2026-W46")
        let without = try WeeklyReport.refreshed(connection: fixture.connection, app: Fixture.app, week: week)
        #expect(try without.rendered(.markdown).contains("pushledger import fcm-delivery-data FILE"))
        #expect(!without.html.contains("FCM delivered vs confirmed"))

        _ = try importPage([Self.entry(10, label: nil, accepted: 500, delivered: 96)])
        let with = try WeeklyReport.refreshed(connection: fixture.connection, app: Fixture.app, week: week)
        let markdown = try with.rendered(.markdown)
        #expect(markdown.contains("Provider says vs devices say") && markdown.contains("2026-11-10"))
        #expect(!markdown.contains("pushledger import fcm-delivery-data FILE"))
        #expect(with.html.contains("FCM delivered vs confirmed by devices") && with.html.contains("<svg"))
        let json = with.json.objectValue?["provider_check"]?.arrayValue
        #expect(json?.first?.objectValue?["delivered_pct"]?.numberValue?.doubleValue == 96)
    }
}
