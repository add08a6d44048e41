import Foundation
import Testing

@testable import PushLedgerContract
@testable import PushLedgerSupport

@Suite struct ContractTelemetryTests {
    typealias F = Fixture

    func payload(_ event: JSONValue, platform: String = "android") throws -> TelemetryPayload {
        let result = try F.telemetry(F.envelope(platform: platform, events: [event]))
        try #require(result.rejections == [])
        return try #require(result.events.first).payload
    }

    @Test func envelopeFieldsAreKept() throws {
        let result = try F.telemetry(F.envelope(events: []))
        #expect(
            result.envelope
                == TelemetryEnvelope(
                    appID: F.appID, installationID: UUID(uuidString: F.installationID)!, platform: .android,
                    appVersion: "5.2.0", osVersion: "14", sdkInt: 34, sentAt: RFC3339.date("2026-11-30T10:00:05.120Z")))
        #expect(result.events == [] && result.rejections == [])
    }

    @Test func iosSnapshotReadsEverySetting() throws {
        let event = F.event(
            "notification_settings",
            [
                "authorization_status": "provisional", "alert_setting": "enabled", "sound_setting": "disabled",
                "badge_setting": "not_supported", "lock_screen_setting": "enabled",
                "notification_center_setting": "enabled",
                "time_sensitive_setting": "disabled", "scheduled_delivery_setting": "not_supported",
                "alert_style": "banner",
                "notifications_enabled": false, "channels": "ignored on iOS",
            ])
        let expected = SettingsSnapshot(
            authorizationStatus: .provisional, alertSetting: .enabled, soundSetting: .disabled,
            badgeSetting: .notSupported,
            lockScreenSetting: .enabled, notificationCenterSetting: .enabled, timeSensitiveSetting: .disabled,
            scheduledDeliverySetting: .notSupported, alertStyle: .banner)
        #expect(try payload(event, platform: "ios") == .notificationSettings(expected))
    }

    @Test func androidSnapshotReadsChannels() throws {
        let event = F.event(
            "notification_settings",
            [
                "notifications_enabled": true, "post_notifications": "not_required", "authorization_status": 7,
                "channels": [
                    ["id": "orders", "importance": 3, "group": "shop", "group_blocked": false],
                    ["id": "promo", "importance": -1000],
                ],
            ])
        let expected = SettingsSnapshot(
            notificationsEnabled: true, postNotifications: .notRequired,
            channels: [
                ChannelState(id: "orders", importance: 3, group: "shop", groupBlocked: false),
                ChannelState(id: "promo", importance: -1000),
            ])
        #expect(try payload(event) == .notificationSettings(expected))
        #expect(
            try payload(F.event("notification_settings", ["notifications_enabled": false]))
                == .notificationSettings(SettingsSnapshot(notificationsEnabled: false)))
    }

    @Test func theEnvelopePlatformDecidesTheRequiredSnapshotField() throws {
        let iosOnly = F.event("notification_settings", ["authorization_status": "denied"])
        let androidOnly = F.event("notification_settings", ["notifications_enabled": true])
        #expect(try F.rejection(of: iosOnly, platform: "android")?.message == "missing field \"notifications_enabled\"")
        #expect(try F.rejection(of: androidOnly, platform: "ios")?.message == "missing field \"authorization_status\"")
        #expect(try F.rejection(of: iosOnly, platform: "ios") == nil)
    }

    @Test func promptExposureAndOpens() throws {
        #expect(
            try payload(
                F.event(
                    "permission_prompt",
                    ["placement": "after_first_order", "prompt": "primer", "result": "already_determined"]))
                == .permissionPrompt(
                    PermissionPrompt(placement: "after_first_order", prompt: .primer, result: .alreadyDetermined)))
        #expect(
            try payload(F.event("experiment_exposure", ["experiment": "push_prompt_timing", "variant": "v_2"]))
                == .experimentExposure(ExperimentExposure(experiment: "push_prompt_timing", variant: "v_2")))
        let id = UUID(uuidString: F.notificationID)!
        #expect(
            try payload(
                F.event(
                    "notification_received",
                    ["notification_id": .string(F.notificationID.uppercased()), "channel": "orders", "displayed": true])
            )
                == .notificationReceived(NotificationReceipt(notificationID: id, channel: "orders", displayed: true)))
        #expect(
            try payload(
                F.event(
                    "notification_opened",
                    [
                        "notification_id": .string(F.notificationID), "action": "reply",
                        "link": "https://shop.example.com/orders/42", "landed": "fallback",
                    ]))
                == .notificationOpened(
                    NotificationOpen(
                        notificationID: id, action: "reply", link: "https://shop.example.com/orders/42",
                        landed: .fallback)))
    }

    @Test func pushTokens() throws {
        let upper = String(repeating: "AB", count: 40)
        #expect(
            try payload(F.event("push_token", ["provider": "apns", "token": .string(upper)]))
                == .pushToken(
                    PushTokenRegistration(provider: .apns, token: upper.lowercased(), environment: .production)))
        #expect(
            try payload(
                F.event("push_token", ["provider": "apns", "token": .string(F.apnsToken), "environment": "sandbox"]))
                == .pushToken(PushTokenRegistration(provider: .apns, token: F.apnsToken, environment: .sandbox)))
        #expect(
            try payload(F.event("push_token", ["provider": "fcm", "token": "fcm:Token-1", "environment": "sandbox"]))
                == .pushToken(PushTokenRegistration(provider: .fcm, token: "fcm:Token-1", environment: nil)))
    }

    @Test func validEventKeepsIndexIdAndTimes() throws {
        let result = try F.telemetry(F.envelope(events: [.int(1), F.validEvent("push_token", n: 9)]))
        let event = try #require(result.events.first)
        #expect(event.index == 1)
        #expect(event.eventID == UUID(uuidString: F.eventID(9))!)
        #expect(F.micros(event.at) == F.micros("2026-11-30T09:59:00Z"))
    }

    // MARK: skew correction

    @Test func occurredAtCorrectsTheDeviceClock() throws {
        // received 10:00:06, sent_at 10:00:05.120, at 09:59:00.000 → 65.12 s before receipt.
        let result = try F.telemetry(F.envelope(events: [F.validEvent("push_token")]))
        let event = try #require(result.events.first)
        #expect(F.micros(event.occurredAt) == F.micros("2026-11-30T10:00:06Z") - 65_120_000)
        #expect(F.micros(event.at) == F.micros("2026-11-30T09:59:00Z"))
    }

    @Test func withoutSentAtTheDeviceTimeIsUsedAsIs() throws {
        let body = F.with(F.envelope(events: [F.validEvent("push_token")]), "sent_at", nil)
        let event = try #require(try F.telemetry(body).events.first)
        #expect(F.micros(event.occurredAt) == F.micros("2026-11-30T09:59:00Z"))
    }

    @Test func aDeviceClockYearsOffIsCorrectedNotRejected() throws {
        let event = F.event(
            "permission_prompt", at: "2019-01-01T00:00:00.250+02:00",
            ["placement": "x", "prompt": "system", "result": "denied"])
        let body = F.with(F.envelope(events: [event]), "sent_at", "2019-01-01T00:00:10+02:00")
        let accepted = try #require(try F.telemetry(body).events.first)
        #expect(F.micros(accepted.occurredAt) == F.micros("2026-11-30T10:00:06Z") - 9_750_000)
    }

    @Test func theAgeWindowUsesTheCorrectedTime() throws {
        // The raw `at` is recent, but the batch says it was sent 31 days after it.
        let body = F.with(F.envelope(events: [F.validEvent("push_token")]), "sent_at", "2026-12-31T09:59:00Z")
        let rejection = try #require(try F.telemetry(body).rejections.first)
        #expect(rejection.code == .tooOld)
        #expect(
            rejection.message
                == """
                the event time (skew-corrected) 2026-10-30T10:00:06.000000Z is more than 30 days before the \
                server's receive time
                """
        )
    }

    @Test(arguments: [
        ("2026-10-31T10:00:06Z", nil), ("2026-10-31T10:00:05.999999Z", RejectionCode.tooOld),
        ("2026-12-01T10:00:06Z", nil), ("2026-12-01T10:00:06.000001Z", .inFuture),
    ])
    func ageWindowBoundaries(at: String, expected: RejectionCode?) throws {
        let body = F.with(
            F.envelope(events: [F.event("push_token", at: at, ["provider": "fcm", "token": "t"])]), "sent_at", nil)
        #expect(try F.telemetry(body).rejections.first?.code == expected)
    }

    @Test func noMaxAgeLiftsTheAgeLimitButNotTheFutureOne() throws {
        var limits = IngestLimits()
        limits.maxAge = nil
        let old = F.event("push_token", at: "2001-01-01T00:00:00Z", ["provider": "fcm", "token": "t"])
        let future = F.event("push_token", n: 2, at: "2027-01-01T00:00:00Z", ["provider": "fcm", "token": "t"])
        let result = try F.telemetry(F.with(F.envelope(events: [old, future]), "sent_at", nil), limits: limits)
        #expect(result.events.map(\.index) == [0])
        #expect(result.rejections.map(\.code) == [.inFuture])
    }

    // MARK: envelope

    @Test(
        arguments: [
            ("app_id", nil, 400, "missing_field", "missing field \"app_id\""),
            ("installation_id", nil, 400, "missing_field", "missing field \"installation_id\""),
            ("platform", JSONValue.null, 400, "missing_field", "missing field \"platform\""),
            ("events", nil, 400, "missing_field", "missing field \"events\""),
            (
                "installation_id", "7f1c6a0e3c554c0e9d551b7a3f0f9a21", 400, "invalid_field",
                "invalid field \"installation_id\""
            ),
            ("platform", "windows", 400, "invalid_field", "expected one of ios, android"),
            ("events", ["a": 1], 400, "invalid_field", "invalid field \"events\": expected an array, got an object"),
            ("sent_at", "yesterday", 400, "invalid_field", "invalid field \"sent_at\""),
            ("sdk_int", .number(JSONNumber(literal: "34.0")!), 400, "invalid_field", "invalid field \"sdk_int\""),
            ("app_version", "", 400, "invalid_field", "expected a non-empty string"),
            ("os_version", "14\u{0}", 400, "invalid_field", "must not contain U+0000"),
            ("app_id", "com.other.app", 403, "app_mismatch", "not the app of this key"),
        ] as [(String, JSONValue?, Int, String, String)])
    func envelopeErrors(key: String, value: JSONValue?, status: Int, code: String, message: String) throws {
        let error = #expect(throws: EnvelopeError.self) { try F.telemetry(F.with(F.envelope(events: []), key, value)) }
        #expect(error?.status == status)
        #expect(error?.code == code)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test(arguments: ["", "not json", "{\"app_id\": ", "{} {}", "\u{FEFF}{}"])
    func bodiesThatAreNotJSON(text: String) {
        let error = #expect(throws: EnvelopeError.self) {
            try TelemetryValidator.validate(
                body: Array(text.utf8), keyAppID: F.appID, receivedAt: F.receivedAt, limits: IngestLimits())
        }
        #expect(error?.status == 400 && error?.code == "invalid_json")
        #expect(error?.message.hasPrefix("the body is not JSON: invalid JSON at byte ") == true)
    }

    @Test func aBodyThatIsNotAnObject() {
        let error = #expect(throws: EnvelopeError.self) { try F.telemetry([F.validEvent("push_token")]) }
        #expect(
            error
                == EnvelopeError(
                    status: 400, code: "invalid_field", message: "the body must be a JSON object, got an array"))
    }

    @Test func aRepeatedEnvelopeKeyIsInvalid() {
        var body = F.envelope(events: []).objectValue!
        body.append("platform", "ios")
        let error = #expect(throws: EnvelopeError.self) { try F.telemetry(.object(body)) }
        #expect(error?.message == "invalid field \"platform\": the key occurs more than once")
    }

    @Test func malformedEnvelopeWinsOverAppMismatchAndTooMany() {
        var limits = IngestLimits()
        limits.maxEventsPerRequest = 1
        let events = Array(repeating: F.validEvent("push_token"), count: 2)
        let both = F.with(F.envelope(events: events), [("app_id", "other"), ("installation_id", "x")])
        let error = #expect(throws: EnvelopeError.self) { try F.telemetry(both, limits: limits) }
        #expect(error?.status == 400)
        let mismatch = #expect(throws: EnvelopeError.self) {
            try F.telemetry(F.with(both, "installation_id", .string(F.installationID)), limits: limits)
        }
        #expect(mismatch?.status == 403)
    }

    @Test func tooManyEvents() throws {
        var limits = IngestLimits()
        limits.maxEventsPerRequest = 3
        let events = (0..<4).map { F.validEvent("push_token", n: $0) }
        let error = #expect(throws: EnvelopeError.self) { try F.telemetry(F.envelope(events: events), limits: limits) }
        #expect(
            error
                == EnvelopeError(
                    status: 413, code: "too_many_events", message: "the request has 4 events, at most 3 are allowed"))
        #expect(try F.telemetry(F.envelope(events: Array(events.prefix(3))), limits: limits).events.count == 3)
    }

    @Test func whatBreaksTheBodyBreaksTheRequest() {
        let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
        let bodies = [
            "{\"events\":[{\"pad\":\(deep)}]}",
            "{\"events\":[{\"n\":1\(String(repeating: "0", count: 80))}]}",
            "{\"events\":[{\"s\":\"\\ud800\"}]}",
        ]
        for text in bodies {
            let error = #expect(throws: EnvelopeError.self) {
                try TelemetryValidator.validate(
                    body: Array(text.utf8), keyAppID: F.appID, receivedAt: F.receivedAt, limits: IngestLimits())
            }
            #expect(error?.code == "invalid_json")
        }
        let invalidUTF8 = Array("{\"events\":[\"".utf8) + [0xC3, 0x28] + Array("\"]}".utf8)
        let error = #expect(throws: EnvelopeError.self) {
            try TelemetryValidator.validate(
                body: invalidUTF8, keyAppID: F.appID, receivedAt: F.receivedAt, limits: IngestLimits())
        }
        #expect(error?.message == "the body is not JSON: invalid JSON at byte 12: invalid UTF-8 sequence")
    }
}
