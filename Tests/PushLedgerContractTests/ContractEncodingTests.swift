import Foundation
import PushLedgerSupport
import Testing

@testable import PushLedgerContract

/// Encoding contract values and validating the result gives the same values: the property
/// that lets the simulator build requests from typed values.
@Suite struct ContractEncodingTests {
    typealias F = Fixture

    struct Random {
        var rng: SplitMix64

        mutating func pick<T>(_ options: [T]) -> T { options[Int.random(in: 0..<options.count, using: &rng)] }
        mutating func maybe<T>(_ make: (inout Random) -> T) -> T? { Bool.random(using: &rng) ? make(&self) : nil }
        mutating func uuid() -> UUID {
            UUID(
                uuid: (
                    UInt8.random(in: 0...255, using: &rng), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                    UInt8.random(in: 0...255, using: &rng)
                ))
        }
        mutating func slug() -> String {
            String((0..<Int.random(in: 1...64, using: &rng)).map { _ in pick(Array("abcxyz0189_")) })
        }
        mutating func text(maxBytes: Int) -> String {
            String((0..<Int.random(in: 1...min(maxBytes, 40), using: &rng)).map { _ in pick(Array("aZ9 é中😀\"\\\n/")) })
        }
        /// A time within the accepted window around the fixtures' receive time.
        mutating func time() -> Date {
            RFC3339.date(
                microseconds: F.micros(F.receivedAt)
                    + Int64.random(in: -29 * 86_400_000_000...86_399_000_000, using: &rng))
        }
        mutating func token(_ provider: PushProvider) -> String {
            switch provider {
            case .apns:
                String(
                    (0..<(32 + Int.random(in: 0...68, using: &rng)) * 2).map { _ in pick(Array("0123456789abcdef")) })
            case .fcm: String((0..<Int.random(in: 1...300, using: &rng)).map { _ in pick(Array("aZ09:_- ~")) })
            case .webpush:
                pick(["https://fcm.googleapis.com/fcm/send/", "https://updates.push.services.mozilla.com/wpush/v2/"])
                    + String((0..<Int.random(in: 1...300, using: &rng)).map { _ in pick(Array("aZ09:_-~")) })
            }
        }
        mutating func setting() -> NotificationSetting? { maybe { $0.pick(NotificationSetting.allCases) } }

        mutating func payload(platform: Platform) -> TelemetryPayload {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0:
                var s = SettingsSnapshot()
                if platform == .web {
                    s.authorizationStatus = pick(AuthorizationStatus.allCases.filter(\.isWeb))
                    s.pushPermissionState = maybe { $0.pick(PushPermissionState.allCases) }
                    s.displayMode = maybe { $0.pick(DisplayMode.allCases) }
                    s.subscription = maybe { $0.pick(SubscriptionState.allCases) }
                } else if platform == .ios {
                    s.authorizationStatus = pick(AuthorizationStatus.allCases)
                    (s.alertSetting, s.soundSetting, s.badgeSetting, s.lockScreenSetting) = (
                        setting(), setting(), setting(), setting()
                    )
                    (s.notificationCenterSetting, s.timeSensitiveSetting, s.scheduledDeliverySetting) = (
                        setting(), setting(), setting()
                    )
                    s.alertStyle = maybe { $0.pick(AlertStyle.allCases) }
                } else {
                    s.notificationsEnabled = Bool.random(using: &rng)
                    s.postNotifications = maybe { $0.pick(PostNotificationsState.allCases) }
                    s.channels = maybe { r in
                        (0..<Int.random(in: 0...4, using: &r.rng)).map { _ in
                            ChannelState(
                                id: r.text(maxBytes: 255), importance: r.pick([-1000, 0, 1, 2, 3, 4, 5]),
                                group: r.maybe { $0.slug() }, groupBlocked: r.maybe { Bool.random(using: &$0.rng) })
                        }
                    }
                }
                return .notificationSettings(s)
            case 1:
                return .permissionPrompt(
                    PermissionPrompt(
                        placement: slug(), prompt: pick(PromptKind.allCases),
                        result: pick(PromptResult.allCases.filter { platform != .web || $0 != .provisional })))
            case 2: return .experimentExposure(ExperimentExposure(experiment: slug(), variant: slug()))
            case 3:
                let provider = pick(PushProvider.allCases.filter { ($0 == .webpush) == (platform == .web) })
                let environment = provider == .apns ? pick(APNsEnvironment.allCases) : nil
                return .pushToken(
                    PushTokenRegistration(provider: provider, token: token(provider), environment: environment))
            case 4 where Bool.random(using: &rng):
                return .notificationDismissed(
                    NotificationReceipt(
                        notificationID: uuid(), channel: maybe { $0.text(maxBytes: 255) }, displayed: true,
                        dismissed: true))
            case 4:
                return .notificationReceived(
                    NotificationReceipt(
                        notificationID: uuid(), channel: maybe { $0.text(maxBytes: 255) },
                        displayed: maybe { Bool.random(using: &$0.rng) }))
            default:
                return .notificationOpened(
                    NotificationOpen(
                        notificationID: uuid(), action: text(maxBytes: 255), link: maybe { $0.text(maxBytes: 4096) },
                        landed: maybe { $0.pick(Landing.allCases) }))
            }
        }

        mutating func send(index: Int) -> SendResult {
            let provider = pick(PushProvider.allCases)
            if provider == .webpush { return webSend(index: index) }
            return SendResult(
                index: index, eventID: uuid(), notificationID: uuid(), appID: F.appID, provider: provider,
                token: token(provider),
                installationID: maybe { $0.uuid() }, channel: text(maxBytes: 255),
                campaign: maybe { $0.text(maxBytes: 255) },
                sentAt: time(), status: pick([0, 200, 400, 410, 429, 503]), reason: maybe { $0.text(maxBytes: 255) },
                apnsID: maybe { $0.uuid().uuidString }, unregisteredAt: maybe { $0.time() },
                priority: maybe { $0.pick([1, 5, 10]) },
                pushType: maybe { $0.pick(["alert", "background"]) },
                environment: maybe { $0.pick(["production", "sandbox"]) },
                latencyMs: maybe { Int.random(in: 0...60_000, using: &$0.rng) })
        }

        /// A Web Push send: Topic, a whole-second TTL and Urgency, none of the APNs/FCM header fields.
        mutating func webSend(index: Int) -> SendResult {
            let sentAt = time()
            return SendResult(
                index: index, eventID: uuid(), notificationID: uuid(), appID: F.appID, provider: .webpush,
                token: token(.webpush), installationID: maybe { $0.uuid() }, channel: text(maxBytes: 255),
                sentAt: sentAt, status: pick([0, 201, 400, 404, 410, 413, 429, 503]),
                reason: maybe { $0.text(maxBytes: 255) },
                latencyMs: maybe { Int.random(in: 0...60_000, using: &$0.rng) },
                collapseID: maybe { $0.pick(["order-42", "score_1", "A"]) },
                expiresAt: maybe { sentAt.addingTimeInterval(Double(Int.random(in: 0...2_419_200, using: &$0.rng))) },
                urgency: maybe { $0.pick(Urgency.allCases) })
        }
    }

    @Test(arguments: Platform.allCases)
    func telemetryRoundTrip(platform: Platform) throws {
        var random = Random(rng: SplitMix64(seed: 11 + UInt64(Platform.allCases.firstIndex(of: platform)!)))
        for _ in 0..<30 {
            let events = (0..<Int.random(in: 0...40, using: &random.rng)).map { index in
                let at = random.time()
                return TelemetryEvent(
                    index: index, eventID: random.uuid(), at: at, occurredAt: at,
                    payload: random.payload(platform: platform))
            }
            let envelope = TelemetryEnvelope(
                appID: F.appID, installationID: random.uuid(), platform: platform,
                appVersion: random.maybe { $0.text(maxBytes: 128) },
                osVersion: random.maybe { $0.text(maxBytes: 128) },
                sdkInt: platform == .web ? nil : random.maybe { Int.random(in: 1...1000, using: &$0.rng) },
                browser: platform == .web ? random.pick(Browser.allCases) : nil,
                browserVersion: platform == .web ? random.text(maxBytes: 128) : nil)
            let result = try F.telemetry(envelope.jsonValue(events: events.map(\.jsonValue)))
            #expect(result.rejections == [])
            #expect(result.envelope == envelope)
            #expect(result.events == events)
        }
    }

    @Test func sendsRoundTrip() throws {
        var random = Random(rng: SplitMix64(seed: 13))
        for _ in 0..<30 {
            let sends = (0..<Int.random(in: 0...40, using: &random.rng)).map { random.send(index: $0) }
            let result = try F.sends(sends.map(\.jsonValue))
            #expect(result.rejections == [])
            #expect(result.sends == sends)
            let ndjson = sends.map(\.jsonValue.jsonText).joined(separator: "\n")
            #expect(try F.ndjson(ndjson).sends == sends)
        }
    }

    @Test func encodingLeavesAbsentOptionalsOut() {
        let event = TelemetryEvent(
            index: 0, eventID: UUID(uuidString: F.eventID(1))!, at: RFC3339.date("2026-11-30T09:59:00.5Z")!,
            occurredAt: .distantPast,
            payload: .pushToken(PushTokenRegistration(provider: .fcm, token: "t", environment: nil)))
        #expect(
            event.jsonValue.jsonText
                == #"{"event_id":"c2b0b6a4-8b1e-4f5b-9a51-000000000001","type":"push_token","#
                + #""at":"2026-11-30T09:59:00.500000Z","provider":"fcm","token":"t"}"#
        )
    }
}
