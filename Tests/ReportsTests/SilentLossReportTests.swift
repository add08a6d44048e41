import Foundation
import Postgres
import PushLedgerRules
import Testing

@testable import OutcomeEngine
@testable import Reports

@Suite("Silent loss and rejections over hand-built sends")
struct SilentLossReportTests {
    let data: OutcomeFixture

    init() throws { data = try OutcomeFixture() }

    @Test func everySendGetsTheOutcomeOfTheFirstMatchingRule() throws {
        let rows = try data.fixture.connection.query(
            """
            select event_id, outcome, token_invalid, to_invalid_token, platform
              from pushledger_classified_sends(\(Fixture.app), \(OutcomeFixture.from), \(OutcomeFixture.to), \
            \(OutcomeFixture.asOf))
            """)
        var got: [UUID: (String, Bool, Bool, String)] = [:]
        for row in rows {
            got[try row.decode("event_id")] = (
                try row.decode("outcome"), try row.decode("token_invalid"),
                try row.decode("to_invalid_token"), try row.decode("platform")
            )
        }
        #expect(got.count == data.expected.count)
        for e in data.expected {
            let actual = try #require(got[e.event], "send \(e.event) missing")
            #expect(actual.0 == e.outcome, "send \(e.event)")
            #expect(actual.1 == e.tokenInvalid, "token_invalid of \(e.event)")
            #expect(actual.2 == e.toInvalidToken, "to_invalid_token of \(e.event)")
            #expect(actual.3 == e.platform, "platform of \(e.event)")
        }
        // Every rule is exercised.
        let outcomes = Set(data.expected.map(\.outcome))
        #expect(
            outcomes == [
                "rejected", "opened", "received", "pending", "blocked_app", "blocked_channel", "unattributed",
                "unconfirmed", "unconfirmable",
            ])
    }

    @Test(arguments: [
        "", "channel", "platform", "campaign,channel", "day", "provider,platform", "app_version,platform",
        "push_type,message_kind", "provider,push_type",
    ])
    func rowsEqualTheCountsOfTheirSlice(by: String) throws {
        let dimensions = try ReportDimension.parseList(by)
        let report = try SilentLossReport.run(connection: data.fixture.connection, query: data.query, by: dimensions)
        func key(_ e: OutcomeFixture.Expected) -> [ReportDimension: String?] {
            var values: [ReportDimension: String?] = [:]
            for d in dimensions {
                switch d {
                case .channel: values[d] = e.channel
                case .platform: values[d] = e.platform
                case .campaign: values[d] = e.campaign
                case .provider: values[d] = e.provider
                case .day: values[d] = e.day
                case .appVersion: values[d] = e.appVersion
                case .pushType: values[d] = e.pushType
                case .messageKind: values[d] = e.messageKind
                case .osVersion, .sdkInt, .standbyBucket, .backgroundRestricted, .ignoringBatteryOptimizations,
                    .lowPowerMode, .browser, .pushService:
                    Issue.record("the fixture holds no device state and no web sends")
                }
            }
            return values
        }
        let keys = Set(data.expected.map { key($0).mapValues { $0 ?? "∅" } })
        #expect(report.rows.count == keys.count)
        for row in report.rows {
            let expected = data.counts { e in key(e).mapValues { $0 ?? "∅" } == row.values.mapValues { $0 ?? "∅" } }
            var outcomes = row.counts
            outcomes.causes = nil
            #expect(outcomes == expected, "slice \(row.values)")
            // Causes partition unconfirmed; latency buckets, received and opened.
            let causes = try #require(row.counts.causes)
            #expect(
                UnconfirmedCause.allCases.reduce(0) { $0 + causes.count($1) } == expected.unconfirmed,
                "slice \(row.values)")
            #expect(causes.confirmed == expected.received + expected.opened, "slice \(row.values)")
        }
    }

    @Test func ratesFollowTheirDefinitionsAndNullOnZeroDenominators() throws {
        let report = try SilentLossReport.run(connection: data.fixture.connection, query: data.query, by: [.channel])
        let json = try parse(report.json.jsonText)
        let rows = try #require(json["rows"] as? [[String: Any]])
        let fields = Set([
            "channel", "sends", "accepted", "rejected", "pending", "opened", "received", "blocked_app",
            "blocked_channel",
            "unconfirmed", "unattributed", "unconfirmable", "token_invalid", "silent_loss_rate", "known_blocked_rate",
            "unconfirmed_rate",
            "confirmed_delivery_rate", "open_rate", "open_rate_of_received", "rejection_rate", "token_invalid_rate",
            "unconfirmable_rate",
            "low_volume",
        ]).union(CauseCounts.fieldNames)
        #expect(Set(json.keys) == ["from", "to", "as_of", "source", "source_reason", "rows"])
        #expect(json["source"] as? String == "engine" && json["source_reason"] is NSNull)
        #expect(json["as_of"] as? String == "2026-11-11T12:00:00.000Z")
        for row in rows {
            #expect(Set(row.keys) == fields)
            let channel = try #require(row["channel"] as? String)
            let c = data.counts { $0.channel == channel }
            let silent = Double(c.blockedApp + c.blockedChannel + c.unconfirmed)
            // Sends that cannot confirm leave these denominators.
            let couldConfirm = Double(c.accepted - c.unconfirmable)
            func close(_ value: Any?, _ expected: Double) -> Bool {
                (value as? Double).map { abs($0 - expected) < 1e-12 } ?? false
            }
            if couldConfirm == 0 {
                #expect(row["silent_loss_rate"] is NSNull)
            } else {
                #expect(close(row["silent_loss_rate"], silent / couldConfirm), "\(channel)")
                #expect(close(row["confirmed_delivery_rate"], Double(c.received + c.opened) / couldConfirm))
            }
            #expect(close(row["rejection_rate"], Double(c.rejected) / Double(c.sends)))
            let low = try #require(row["low_volume"] as? [String])
            #expect(low.contains("silent_loss_rate") == (c.accepted - c.unconfirmable < 30))
        }
        // "promotions" has one blocked send: silent loss 1/1; "news" likewise.
        let promotions = try #require(rows.first { $0["channel"] as? String == "promotions" })
        #expect(promotions["silent_loss_rate"] as? Double == 1)
        #expect(promotions["open_rate_of_received"] is NSNull)
    }

    @Test func rejectionsByProviderAndReasonWithTokenHygiene() throws {
        let report = try RejectionsReport.run(connection: data.fixture.connection, query: data.query)
        for provider in ["apns", "fcm"] {
            let c = data.counts { $0.provider == provider }
            let row = try #require(report.providers.first { $0.provider == provider })
            #expect(row.sends == c.sends && row.rejected == c.rejected)
            #expect(row.tokenInvalid == c.tokenInvalid && row.toInvalidToken == c.toInvalidToken)
        }
        let classes = report.reasonClasses.map { "\($0.provider)/\($0.reasonClass)=\($0.rejected)" }.sorted()
        #expect(
            classes == [
                "apns/auth=1", "apns/provider_error=1", "apns/token_invalid=2", "fcm/throttled=1",
                "fcm/token_invalid=2",
            ])
        let unregistered = try #require(report.reasons.first { $0.reason == "UNREGISTERED" })
        #expect(unregistered.status == 404 && unregistered.rejected == 2)
        #expect(unregistered.rate.denominator == data.counts { $0.provider == "fcm" }.sends)
        let json = try parse(report.json.jsonText)
        #expect(Set(json.keys) == ["from", "to", "as_of", "providers", "reason_classes", "reasons"])
        let csv = try report.rendered(.csv)
        #expect(csv.hasPrefix("provider,reason_class,reason,status,rejected,share_of_sends\r\n"))
    }

    @Test func anEmptyWindowIsAnEmptyReport() throws {
        let empty = ReportQuery(
            app: Fixture.app, from: Fixture.time(2025, 1, 1), to: Fixture.time(2025, 1, 2), asOf: OutcomeFixture.asOf)
        let report = try SilentLossReport.run(connection: data.fixture.connection, query: empty, by: [.channel])
        #expect(report.rows.isEmpty)
        #expect(try parse(report.json.jsonText)["rows"] as? [Any] != nil)
        #expect(try report.rendered(.table).contains("no sends in the window"))
        #expect(try RejectionsReport.run(connection: data.fixture.connection, query: empty).providers.isEmpty)
        let quick = try SilentLossReport.quick(connection: data.fixture.connection, app: "other.app", since: 86_400)
        #expect(quick.rows.isEmpty && quick.quickText.contains("no sends in the window"))
    }

    @Test func quickAnswerCoversTheSettledSpanBeforeTheConfirmationWindow() throws {
        let quick = try SilentLossReport.quick(
            connection: data.fixture.connection, app: Fixture.app, since: 86_400,
            asOf: OutcomeFixture.asOf, by: [.channel])
        let to = OutcomeFixture.asOf.addingTimeInterval(-86_400)
        #expect(quick.query.to == to && quick.query.from == to.addingTimeInterval(-86_400))
        #expect(!quick.rows.isEmpty)
        for row in quick.rows {
            let expected = data.counts { $0.channel == row.values[.channel] && $0.at >= quick.query.from && $0.at < to }
            var outcomes = row.counts
            outcomes.causes = nil
            #expect(outcomes == expected && expected.pending == 0)
            #expect(
                row.counts.causes.map { c in UnconfirmedCause.allCases.reduce(0) { $0 + c.count($1) } }
                    == expected.unconfirmed)
        }
        #expect(quick.quickText.contains("orders") && quick.quickText.contains("no send in it is pending"))
    }

    @Test func renderersCarryEveryRowAndMarkLowVolume() throws {
        let report = try SilentLossReport.run(
            connection: data.fixture.connection, query: data.query, by: [.channel, .campaign])
        let csv = try report.rendered(.csv)
        #expect(csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == report.rows.count + 1)
        let markdown = try report.rendered(.markdown)
        #expect(markdown.contains("| orders | order\\_update |"))
        #expect(try report.rendered(.table).contains("%*"))
        #expect(throws: ReportError.self) { try report.rendered(.html) }
    }
}

func parse(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}
