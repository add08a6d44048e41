import Foundation
import Postgres
import PushLedgerContract
import Store
import Testing

/// metrics.md "Outcome of one send attempt", rule by rule, on hand-built data stored through
/// the writer. The report window is 2026-11-10 (hours -12 ..< 12 around noon).
@Suite struct OutcomeEngineTests {
    typealias F = Fixture
    let db: StoreDatabase
    init() throws { db = try StoreDatabase() }

    struct Classified: Equatable {
        var outcome: String
        var platform: String
        var appVersion: String?
        var row: [String: String?]
    }

    private func classify(asOf: Double = 30, from: Double = -12, to: Double = 12) throws -> [Int: Classified] {
        let rows = try db.connection.query(
            """
            select event_id, outcome, platform, app_version, display_state, channel_blocked::text, instrumented::text,
                   to_invalid_token::text, token_invalid::text, reason_class, resolved_by
              from pushledger_classified_sends(\(F.app), \(F.time(from)), \(F.time(to)), \(F.time(asOf)))
            """)
        var out: [Int: Classified] = [:]
        for row in rows {
            let id: UUID = try row.decode("event_id")
            let n = Int(id.uuidString.suffix(12), radix: 16)!
            var facts: [String: String?] = [:]
            for column in [
                "display_state", "channel_blocked", "instrumented", "to_invalid_token", "token_invalid",
                "reason_class", "resolved_by",
            ] {
                facts[column] = try row.decode(column, as: String?.self)
            }
            out[n] = Classified(
                outcome: try row.decode("outcome"), platform: try row.decode("platform"),
                appVersion: try row.decode("app_version"), row: facts)
        }
        return out
    }

    private func settings(
        _ installation: Int, event: Int, at: Double, platform: Platform = .android, version: String? = "5.2.0",
        _ payload: TelemetryPayload, receivedAt: Double = 100
    ) -> IngestUnit {
        F.telemetry(
            F.envelope(installation: F.installation(installation), platform: platform, appVersion: version),
            [F.event(event, at: at, payload)], receivedAt: F.time(receivedAt))
    }

    private func device(_ installation: Int, version: String? = "5.2.0", _ events: [TelemetryEvent]) -> IngestUnit {
        F.telemetry(F.envelope(installation: F.installation(installation), appVersion: version), events)
    }

    @Test func eachRuleInOrder() throws {
        let channels = [
            ChannelState(id: "orders", importance: 4), ChannelState(id: "promo", importance: 0),
            ChannelState(id: "news", importance: 3, group: "media", groupBlocked: true),
        ]
        _ = try db.write(
            settings(1, event: 901, at: -10, F.androidSettings(enabled: true, channels: channels)),
            settings(2, event: 902, at: -10, F.androidSettings(enabled: false)),
            settings(2, event: 903, at: -1, version: "6.0", F.androidSettings(enabled: true)),  // after the sends
            settings(
                3, event: 904, at: -10, platform: .ios,
                .notificationSettings(SettingsSnapshot(authorizationStatus: .denied))),
            settings(5, event: 905, at: -10, version: "9.9", F.androidSettings(enabled: true)),
            settings(6, event: 906, at: -10, version: nil, F.androidSettings(enabled: true)),
            device(
                1,
                [
                    F.event(910, at: -4, F.received(7, displayed: false)), F.event(911, at: -4, F.opened(1)),
                    F.event(912, at: -7, F.token("i4")),
                ]),
            device(
                2,
                [
                    F.event(913, at: -4, F.opened(2)), F.event(914, at: -4, F.received(3)),
                    F.event(915, at: -4, F.received(17, displayed: false)),
                ]),
            device(7, version: nil, [F.event(916, at: -3, F.received(99))]),  // makes the null slice instrumented
            device(5, version: "9.9", [F.event(917, at: 14, F.received(98))]),  // next day: outside the window
            F.telemetry(F.envelope(installation: F.installation(4)), [F.event(918, at: -7, F.token("i4"))]))
        _ = try db.write(
            F.sends([
                F.send(
                    1, notification: 1, at: -5, installation: F.installation(1), status: 429, reason: "QUOTA_EXCEEDED"),
                F.send(2, notification: 2, at: -5, installation: F.installation(2)),
                F.send(3, notification: 3, at: -5, installation: F.installation(2)),
                F.send(4, notification: 4, at: 10, installation: F.installation(1)),
                F.send(5, notification: 5, at: -5, installation: F.installation(2)),
                F.send(6, notification: 6, at: -5, installation: F.installation(1), channel: "promo"),
                F.send(16, notification: 16, at: -5, installation: F.installation(1), channel: "news"),
                F.send(26, notification: 26, at: -5, installation: F.installation(3), provider: .apns),
                F.send(7, notification: 7, at: -5, installation: F.installation(1)),
                F.send(17, notification: 17, at: -5, installation: F.installation(2)),
                F.send(8, notification: 8, at: -5, token: "i4"),  // resolved, but no snapshot
                F.send(18, notification: 18, at: -5, token: "nobody", provider: .apns),  // unresolvable token
                F.send(28, notification: 28, at: -5, installation: F.installation(5)),  // slice 9.9 not instrumented
                F.send(9, notification: 9, at: -5, installation: F.installation(1)),
                F.send(19, notification: 19, at: -5, installation: F.installation(1), channel: "not_created_yet"),
                F.send(29, notification: 29, at: -5, installation: F.installation(6)),  // null version, instrumented
            ]))
        let got = try classify()
        let expected: [Int: String] = [
            1: "rejected", 2: "opened", 3: "received", 4: "pending", 5: "blocked_app", 6: "blocked_channel",
            16: "blocked_channel", 26: "blocked_app", 7: "received", 17: "blocked_app", 8: "unattributed",
            18: "unattributed", 28: "unattributed", 9: "unconfirmed", 19: "unconfirmed", 29: "unconfirmed",
        ]
        #expect(got.mapValues(\.outcome) == expected)
        // Slice of the as-of snapshot, not the later one; provider's platform when unresolved.
        #expect(got[5]?.appVersion == "5.2.0")
        #expect(got[18]?.platform == "ios" && got[18]?.row["resolved_by"] == "unresolved")
        #expect(got[8]?.row["display_state"] == "unknown" && got[8]?.row["resolved_by"] == "token")
        #expect(got[28]?.row["instrumented"] == "false" && got[29]?.row["instrumented"] == "true")
        #expect(got[29]?.appVersion == nil)
        #expect(got[1]?.row["reason_class"] == "throttled")
        #expect(got[6]?.row["channel_blocked"] == "true" && got[19]?.row["channel_blocked"] == "false")
    }

    @Test func asOfHidesLaterEventsAndEndsPending() throws {
        _ = try db.write(
            settings(1, event: 901, at: -10, F.androidSettings(enabled: true)),
            device(1, [F.event(910, at: -9, F.received(50)), F.event(911, at: 20, F.received(1))]))
        _ = try db.write(
            F.sends([
                F.send(1, notification: 1, at: -5, installation: F.installation(1)),
                F.send(2, notification: 2, at: 11, installation: F.installation(1)),
            ]))
        // As of hour 15: the receipt (hour 20) isn't known yet, send 1 is within 24 h: pending;
        // send 2 lies after as_of and is not counted at all.
        #expect(try classify(asOf: 10).mapValues(\.outcome) == [1: "pending"])
        #expect(try classify(asOf: 19).mapValues(\.outcome) == [1: "unconfirmed", 2: "pending"])
        #expect(try classify(asOf: 21).mapValues(\.outcome) == [1: "received", 2: "pending"])
        #expect(try classify(asOf: 40).mapValues(\.outcome) == [1: "received", 2: "unconfirmed"])
    }

    @Test func aSnapshotOlderThanAMonthStillDecides() throws {
        _ = try db.write(
            settings(1, event: 901, at: -24 * 45, F.androidSettings(enabled: false)),  // September
            settings(2, event: 902, at: -24 * 45, F.androidSettings(enabled: false)),
            settings(2, event: 903, at: -24 * 20, F.androidSettings(enabled: true)),  // October: newer
            device(3, [F.event(910, at: -9, F.received(50))]))
        _ = try db.write(
            F.sends([
                F.send(1, notification: 1, at: -5, installation: F.installation(1)),
                F.send(2, notification: 2, at: -5, installation: F.installation(2)),
            ]))
        #expect(try classify().mapValues(\.outcome) == [1: "blocked_app", 2: "unconfirmed"])
    }

    /// The as-of state of a send before the installation's first snapshot in the window comes
    /// from before the window, channel states included; later sends follow the window's snapshot.
    @Test func aSnapshotBeforeTheWindowDecidesUntilTheWindowsFirstSnapshot() throws {
        let promoBlocked = [ChannelState(id: "orders", importance: 4), ChannelState(id: "promo", importance: 0)]
        let promoOn = [ChannelState(id: "orders", importance: 4), ChannelState(id: "promo", importance: 3)]
        _ = try db.write(
            settings(1, event: 901, at: -24 * 3, F.androidSettings(enabled: true, channels: promoBlocked)),
            settings(1, event: 902, at: -2, F.androidSettings(enabled: true, channels: promoOn)),
            settings(2, event: 903, at: -24 * 3, F.androidSettings(enabled: false)),
            device(3, [F.event(910, at: -9, F.received(50))]))
        _ = try db.write(
            F.sends([
                F.send(1, notification: 1, at: -5, installation: F.installation(1), channel: "promo"),
                F.send(2, notification: 2, at: -5, installation: F.installation(1), channel: "orders"),
                // Sent at the time of the new snapshot: that one decides.
                F.send(3, notification: 3, at: -2, installation: F.installation(1), channel: "promo"),
                F.send(4, notification: 4, at: 5, installation: F.installation(1), channel: "promo"),
                F.send(5, notification: 5, at: -5, installation: F.installation(2)),
                F.send(6, notification: 6, at: -5, installation: F.installation(4)),  // never reported
            ]))
        let got = try classify()
        #expect(
            got.mapValues(\.outcome) == [
                1: "blocked_channel", 2: "unconfirmed", 3: "unconfirmed", 4: "unconfirmed",
                5: "blocked_app", 6: "unattributed",
            ])
        #expect(got[1]?.row["channel_blocked"] == "true" && got[3]?.row["channel_blocked"] == "false")
        #expect(got[6]?.row["display_state"] == "unknown")
    }

    /// Receipts and opens count however late they came, and from 32 days before the window
    /// (none can be older: the contract refuses telemetry 30 days older than its arrival).
    @Test func receiptsAndOpensCountFrom32DaysBeforeTheWindow() throws {
        _ = try db.write(
            settings(1, event: 901, at: -24 * 40, F.androidSettings(enabled: true)),
            device(3, [F.event(910, at: -9, F.received(50))]),
            device(
                1,
                [
                    F.event(911, at: -12 - 24 * 31, F.received(1)), F.event(912, at: -12 - 24 * 33, F.received(2)),
                    F.event(913, at: -12 - 24 * 31, F.opened(3)), F.event(914, at: -12 - 24 * 33, F.opened(4)),
                    F.event(915, at: 29, F.opened(5)),
                ]))
        _ = try db.write(F.sends((1...5).map { F.send($0, notification: $0, at: -5, installation: F.installation(1)) }))
        #expect(
            try classify().mapValues(\.outcome) == [
                1: "received", 2: "unconfirmed", 3: "opened", 4: "unconfirmed",
                5: "opened",
            ])
    }

    @Test func snapshotTiesBreakByReceivedTimeThenEventID() throws {
        _ = try db.write(
            // Same time: the later received wins ...
            settings(1, event: 1, at: -10, F.androidSettings(enabled: false), receivedAt: 101),
            settings(1, event: 2, at: -10, F.androidSettings(enabled: true), receivedAt: 100),
            // ... and with the same received time, the greater event_id.
            settings(2, event: 4, at: -10, F.androidSettings(enabled: false)),
            settings(2, event: 3, at: -10, F.androidSettings(enabled: true)),
            device(1, [F.event(910, at: -9, F.received(50))]))
        _ = try db.write(
            F.sends([
                F.send(11, notification: 1, at: -5, installation: F.installation(1)),
                F.send(12, notification: 2, at: -5, installation: F.installation(2)),
            ]))
        #expect(try classify().mapValues(\.outcome) == [11: "blocked_app", 12: "blocked_app"])
    }

    @Test func iosDisplayRules() throws {
        func ios(_ n: Int, _ s: SettingsSnapshot) -> IngestUnit {
            settings(n, event: 900 + n, at: -10, platform: .ios, .notificationSettings(s))
        }
        _ = try db.write(
            ios(1, SettingsSnapshot(authorizationStatus: .authorized)),  // none reported
            ios(
                2,
                SettingsSnapshot(
                    authorizationStatus: .provisional, alertSetting: .disabled,
                    notificationCenterSetting: .enabled)),
            ios(
                3,
                SettingsSnapshot(
                    authorizationStatus: .authorized, alertSetting: .disabled,
                    lockScreenSetting: .disabled, notificationCenterSetting: .notSupported)),
            ios(4, SettingsSnapshot(authorizationStatus: .notDetermined)),
            ios(5, SettingsSnapshot(authorizationStatus: .ephemeral, lockScreenSetting: .enabled)),
            F.telemetry(
                F.envelope(installation: F.installation(9), platform: .ios), [F.event(910, at: -9, F.received(50))]))
        _ = try db.write(
            F.sends(
                (1...5).map { F.send($0, notification: $0, at: -5, installation: F.installation($0), provider: .apns) })
        )
        #expect(
            try classify().mapValues(\.outcome) == [
                1: "unconfirmed", 2: "unconfirmed", 3: "blocked_app", 4: "blocked_app", 5: "unconfirmed",
            ])
    }

    @Test func sendsToTokensAlreadyKnownInvalid() throws {
        _ = try db.write(
            F.telemetry(F.envelope(installation: F.installation(1)), [F.event(900, at: -11, F.token("dead"))]))
        _ = try db.write(
            F.sends([
                F.send(1, notification: 1, at: -8, token: "dead", status: 404, reason: "UNREGISTERED"),
                F.send(2, notification: 2, at: -6, token: "dead"),
                F.send(3, notification: 3, at: -4, token: "dead"),
                F.send(4, notification: 4, at: -8, token: "fine", provider: .apns, status: 400, reason: "BadTopic"),
                F.send(5, notification: 5, at: -6, token: "fine", provider: .apns),
            ]))
        _ = try db.write(
            F.telemetry(F.envelope(installation: F.installation(1)), [F.event(901, at: -5, F.token("dead"))]))
        let got = try classify()
        #expect(
            got.mapValues { $0.row["to_invalid_token"] } == [1: "false", 2: "true", 3: "false", 4: "false", 5: "false"])
        #expect(got[1]?.row["token_invalid"] == "true" && got[4]?.row["token_invalid"] == "false")
        #expect(got[4]?.row["reason_class"] == "payload")
    }

    @Test func reasonClasses() throws {
        let cases: [(Int32, String?, String?)] = [
            (200, nil, nil), (410, "Unregistered", "token_invalid"), (410, "ExpiredToken", "token_invalid"),
            (400, "BadDeviceToken", "token_invalid"), (404, "UNREGISTERED", "token_invalid"), (429, nil, "throttled"),
            (429, "QUOTA_EXCEEDED", "throttled"), (401, nil, "auth"), (403, "InvalidProviderToken", "auth"),
            (413, nil, "payload"), (400, "BadTopic", "payload"), (400, "INVALID_ARGUMENT", "payload"),
            (500, nil, "provider_error"), (503, "UNAVAILABLE", "provider_error"), (0, nil, "provider_error"),
            (405, "MethodNotAllowed", "other"),
        ]
        for (status, reason, expected) in cases {
            let got: String? = try db.value("select pushledger_reason_class('apns', \(status), \(reason))")
            #expect(got == expected, "\(status) \(reason ?? "-")")
        }
    }
}

@Suite struct OpenLandingTests {
    typealias F = Fixture

    @Test func opensCarryTheirSendsChannelAndCampaignAndMisrouting() throws {
        let db = try StoreDatabase()
        _ = try db.write(
            F.sends([
                F.send(1, notification: 1, at: -5, channel: "orders", campaign: "delivery"),
                F.send(2, notification: 2, at: -5, channel: "promo", campaign: "sale"),
            ]),
            F.telemetry(
                F.envelope(installation: F.installation(1)),
                [
                    F.event(10, at: -4, F.opened(1, landed: .target)),
                    F.event(11, at: -4, F.opened(2, landed: .fallback)),
                    F.event(12, at: -4, F.opened(2, landed: .rejected)), F.event(13, at: -4, F.opened(2, landed: nil)),
                    F.event(14, at: -4, F.opened(3, landed: .fallback)),
                ]))
        let rows = try db.connection.query(
            """
            select coalesce(channel, '-') as channel, count(*) filter (where misrouted)::int as misrouted,
                   count(misrouted)::int as reported
              from open_landings group by 1 order by 1
            """)
        let got = try rows.map {
            """
            \(try $0.decode("channel", as: String.self)) \
            \(try $0.decode("misrouted", as: Int.self))/\(try $0.decode("reported", as: Int.self))
            """
        }
        #expect(got == ["- 1/1", "orders 0/1", "promo 2/2"])
    }
}
