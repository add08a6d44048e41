import Foundation
import Testing

@testable import PushLedgerContract
@testable import PushLedgerSupport

/// Per-event rejections of telemetry: every code, the contract's check order, and what a
/// rejection carries for the response and the failed-event store.
@Suite struct ContractEventErrorTests {
    typealias F = Fixture

    @Test func checksRunInTheContractsOrder() throws {
        // One event failing every check; each fix reveals the next code in the contract's order.
        var event = F.event(
            "bogus", at: "2026-01-01T00:00:00Z",
            ["placement": "Not A Slug", "result": "granted", "pad": .string(String(repeating: "x", count: 40_000))])
        #expect(try F.rejection(of: event)?.code == .tooLarge)
        event = F.with(event, "pad", nil)
        #expect(try F.rejection(of: event)?.code == .unknownType)
        event = F.with(event, "type", "permission_prompt")
        #expect(try F.rejection(of: event)?.message == "missing field \"prompt\"")
        event = F.with(event, "prompt", "primer")
        #expect(
            try F.rejection(of: event)?.message
                == "invalid field \"placement\": expected a slug of 1 to 64 characters a-z, 0-9 or _")
        event = F.with(event, "placement", "settings_banner")
        #expect(try F.rejection(of: event)?.code == .tooOld)
        event = F.with(event, "at", "2026-11-30T09:00:00Z")
        #expect(try F.rejection(of: event) == nil)
    }

    @Test func aMissingFieldIsReportedBeforeAnEarlierInvalidOne() throws {
        let event = F.with(F.validEvent("push_token"), [("event_id", "nope"), ("token", nil)])
        let rejection = try #require(try F.rejection(of: event))
        #expect(rejection.code == .missingField)
        #expect(rejection.message == "missing field \"token\"")
    }

    @Test(arguments: ["event_id", "type", "at", "placement", "prompt", "result"])
    func absentAndNullAreBothMissing(field: String) throws {
        for value in [nil, JSONValue.null] {
            let rejection = try #require(try F.rejection(of: F.with(F.validEvent("permission_prompt"), field, value)))
            #expect(rejection.code == .missingField)
            #expect(rejection.message == "missing field \"\(field)\"")
        }
    }

    @Test(
        arguments: [
            (
                "push_token", "token", JSONValue.string(String(repeating: "a", count: 63)),
                "hex of even length 64 to 200"
            ),
            ("push_token", "token", .string(String(repeating: "g", count: 64)), "hex of even length 64 to 200"),
            ("push_token", "provider", "hms", "expected apns or fcm on platform"),
            ("push_token", "environment", "staging", "expected one of production, sandbox"),
            ("permission_prompt", "placement", .string(String(repeating: "a", count: 65)), "expected a slug"),
            ("permission_prompt", "prompt", "System", "expected one of system, primer"),
            ("experiment_exposure", "variant", "first-screen", "expected a slug"),
            ("notification_received", "notification_id", 42, "expected a UUID (8-4-4-4-12 hex), got a number"),
            ("notification_received", "displayed", "yes", "expected true or false"),
            (
                "notification_received", "channel", .string(String(repeating: "c", count: 256)),
                "expected at most 255 bytes, got 256"
            ),
            ("notification_opened", "action", "", "expected a non-empty string"),
            ("notification_opened", "action", "de\u{0}fault", "must not contain U+0000"),
            ("notification_opened", "landed", "home", "expected one of target, fallback, rejected"),
            ("notification_opened", "at", "2026-11-30T09:59:00", "expected an RFC 3339 time"),
            ("notification_opened", "event_id", "{c2b0b6a4-8b1e-4f5b-9a51-4d3a0f5d8e10}", "expected a UUID"),
            ("notification_opened", "type", ["notification_opened"], "expected an event type name, got an array"),
            ("notification_settings", "notifications_enabled", 1, "expected true or false, got a number"),
            ("notification_settings", "post_notifications", "allowed", "expected one of granted, denied, not_required"),
            ("notification_settings", "channels", ["id": "x"], "expected an array, got an object"),
        ] as [(String, String, JSONValue, String)])
    func invalidFields(type: String, field: String, value: JSONValue, expected: String) throws {
        let rejection = try #require(try F.rejection(of: F.with(F.validEvent(type), field, value)))
        #expect(rejection.code == .invalidField)
        #expect(rejection.message.hasPrefix("invalid field \"\(field)\": "))
        #expect(rejection.message.contains(expected), "\(rejection.message)")
    }

    static let importanceMessage =
        "invalid field \"channels[0].importance\": expected one of -1000, 0, 1, 2, 3, 4, 5, got a number"
    static let duplicateID: JSONValue = .object(
        JSONObject([.init(key: "id", value: "a"), .init(key: "importance", value: 3), .init(key: "id", value: "b")]))
    static let channelCases: [([JSONValue], String)] = [
        ([["id": "a", "importance": 6]], importanceMessage),
        ([["id": "a", "importance": .number(JSONNumber(literal: "3.0")!)]], importanceMessage),
        ([["id": "a", "importance": 3], ["importance": 3]], "missing field \"channels[1].id\""),
        ([["id": "a", "importance": 3], "orders"], "invalid field \"channels[1]\": expected an object, got a string"),
        (
            [["id": "a", "importance": 3, "group_blocked": "no"]],
            "invalid field \"channels[0].group_blocked\": expected true or false"
        ),
        ([duplicateID], "invalid field \"channels[0].id\": the key occurs more than once"),
    ]

    @Test(arguments: channelCases)
    func invalidChannels(channels: [JSONValue], message: String) throws {
        let event = F.event("notification_settings", ["notifications_enabled": true, "channels": .array(channels)])
        #expect(try F.rejection(of: event)?.message == message)
    }

    @Test func aRepeatedKeyInAnEventIsInvalid() throws {
        guard case .object(var object) = F.validEvent("push_token") else { return }
        object.append("provider", "fcm")
        let rejection = try #require(try F.rejection(of: .object(object)))
        #expect(rejection.code == .invalidField)
        #expect(rejection.message == "invalid field \"provider\": the key occurs more than once")
    }

    @Test func unknownFieldsAreIgnored() throws {
        let event = F.with(
            F.validEvent("notification_opened"), [("future_field", ["nested": [1, 2, ["x": nil]]]), ("v2", true)])
        #expect(try F.rejection(of: event) == nil)
    }

    @Test func unknownTypeIsReportedEvenWithoutOtherFields() throws {
        let rejection = try #require(try F.rejection(of: ["type": "app_crashed"]))
        #expect(rejection.code == .unknownType)
        #expect(rejection.message == "unknown event type \"app_crashed\"")
        #expect(rejection.eventID == nil)
        let long = try #require(try F.rejection(of: ["type": .string(String(repeating: "z", count: 300))]))
        #expect(long.message == "unknown event type")
    }

    @Test func aNonObjectEventIsInvalid() throws {
        let rejection = try #require(try F.rejection(of: "push_token"))
        #expect(rejection.code == .invalidField)
        #expect(rejection.message == "invalid field \"event\": expected a JSON object, got a string")
        #expect(rejection.rawJSON == "\"push_token\"")
    }

    @Test func tooLargeMeasuresTheTextAsSent() throws {
        var limits = IngestLimits()
        limits.maxEventBytes = 200
        let event = F.validEvent("notification_opened")
        let text = event.jsonText
        // Same event padded with spaces inside: same value, more bytes on the wire.
        let padding = String(repeating: " ", count: limits.maxEventBytes - text.utf8.count)
        let exact = "{" + padding + text.dropFirst()
        let over = "{ " + padding + text.dropFirst()
        let body =
            #"{"app_id":"\#(F.appID)","installation_id":"\#(F.installationID)","platform":"ios","#
            + #""events":[\#(exact) , \#(over)]}"#
        let result = try TelemetryValidator.validate(
            body: Array(body.utf8), keyAppID: F.appID, receivedAt: F.receivedAt, limits: limits)
        #expect(result.events.map(\.index) == [0])
        let rejection = try #require(result.rejections.first)
        #expect(rejection.index == 1)
        #expect(rejection.code == .tooLarge)
        #expect(rejection.message == "the event is 201 bytes, at most 200 are allowed")
        #expect(rejection.rawJSON == over)
        #expect(rejection.eventID == F.eventID(1))
    }

    @Test func aRejectionCarriesItsIndexIdAndRawText() throws {
        let raw =
            #"{ "event_id" : "not-a-uuid", "type":"push_token", "at":"2026-11-30T09:59:00Z", "provider":"fcm","#
            + #" "token":"\u00e9t" }"#
        let body =
            #"{"app_id":"com.example.shop","installation_id":"7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a21","platform":"ios","#
            + #""events":[{"type":"x","event_id":7},  "#
            + raw + "\n]}"
        let result = try TelemetryValidator.validate(
            body: Array(body.utf8), keyAppID: F.appID, receivedAt: F.receivedAt, limits: IngestLimits())
        #expect(result.rejections.count == 2)
        #expect(result.rejections[0].eventID == nil)
        #expect(result.rejections[0].rawJSON == #"{"type":"x","event_id":7}"#)
        #expect(result.rejections[1].index == 1)
        #expect(result.rejections[1].eventID == "not-a-uuid")
        #expect(result.rejections[1].code == .invalidField)
        #expect(result.rejections[1].rawJSON == raw)
    }

    @Test func echoedEventIdsAreCappedAndStorable() throws {
        let long = String(repeating: "é", count: 100)  // 200 bytes
        let capped = try #require(
            try F.rejection(of: F.with(F.validEvent("push_token"), "event_id", .string(long)))?.eventID)
        #expect(capped == String(repeating: "é", count: 64))
        let nul = try #require(try F.rejection(of: F.with(F.validEvent("push_token"), "event_id", "a\u{0}b"))?.eventID)
        #expect(nul == "a\u{FFFD}b")
        let huge = try #require(
            try F.rejection(
                of: F.with(F.validEvent("push_token"), "event_id", .string(String(repeating: "x", count: 30_000))))?
                .eventID)
        #expect(huge == String(repeating: "x", count: 128))
    }

    @Test func storableTextForTheFailedEventStore() {
        #expect(Rejection.storableText(ArraySlice(Array("ok é".utf8))) == "ok é")
        #expect(Rejection.storableText([0x61, 0x00, 0xFF, 0x62][...]) == "a\u{FFFD}\u{FFFD}b")
    }

    @Test func absurdAgeSettingsMeanNoLimitInsteadOfATrap() throws {
        var limits = IngestLimits()
        limits.maxAge = .infinity
        limits.maxFuture = .nan
        let event = F.event("push_token", at: "0001-01-01T00:00:00Z", ["provider": "fcm", "token": "t"])
        let future = F.event("push_token", at: "9999-12-31T23:59:59Z", ["provider": "fcm", "token": "t"])
        let body = F.with(F.envelope(events: [event, future]), "sent_at", nil)
        #expect(try F.telemetry(body, limits: limits).events.count == 2)
    }

    @Test func giantStringsAreTooLargeOrTooLong() throws {
        let giant = String(repeating: "L", count: 1 << 20)
        #expect(
            try F.rejection(of: F.with(F.validEvent("notification_opened"), "link", .string(giant)))?.code == .tooLarge)
        let rejection = try F.rejection(
            of: F.with(F.validEvent("notification_opened"), "link", .string(String(giant.prefix(5000)))))
        #expect(rejection?.message == "invalid field \"link\": expected at most 4096 bytes, got 5000")
    }

    @Test func numbersMustBeIntegersInRange() throws {
        for value: JSONValue in [
            .number(JSONNumber(literal: "99999999999999999999")!), 3.5, .number(JSONNumber(literal: "1e2")!), "34",
        ] {
            let error = #expect(throws: EnvelopeError.self) {
                try F.telemetry(F.with(F.envelope(events: []), "sdk_int", value))
            }
            #expect(error?.message.hasPrefix("invalid field \"sdk_int\": expected an integer from 1 to 1000") == true)
        }
    }
}
