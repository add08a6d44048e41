import Foundation
import Testing

@testable import PushLedgerContract
@testable import PushLedgerSupport

@Suite struct ContractSendsTests {
    typealias F = Fixture

    @Test func theContractsExampleSendParsesCompletely() throws {
        let send = try #require(try F.sends([.int(0), F.send]).sends.first)
        let expected = SendResult(
            index: 1, eventID: UUID(uuidString: "c2b0b6a4-8b1e-4f5b-9a51-4d3a0f5d8e10")!,
            notificationID: UUID(uuidString: F.notificationID)!, appID: F.appID, provider: .apns, token: F.apnsToken,
            installationID: UUID(uuidString: F.installationID)!, channel: "orders", campaign: "order_out_for_delivery",
            sentAt: RFC3339.date("2026-11-30T10:00:00Z")!, status: 200, reason: nil,
            apnsID: "5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77",
            unregisteredAt: nil, priority: 10, pushType: "alert", environment: "production", latencyMs: 41)
        #expect(send == expected)
    }

    @Test func onlyTheRequiredFieldsAreNeeded() throws {
        let optional = [
            "installation_id", "campaign", "reason", "apns_id", "unregistered_at", "priority", "push_type",
            "environment", "latency_ms",
        ]
        let minimal = F.with(F.send, optional.map { ($0, nil) })
        let send = try #require(
            try F.sends([F.with(minimal, [("provider", "fcm"), ("token", "fcm-token"), ("status", 0)])]).sends.first)
        #expect(send.installationID == nil && send.campaign == nil && send.latencyMs == nil && send.priority == nil)
        #expect(send.provider == .fcm && send.token == "fcm-token" && send.status == 0)
    }

    @Test func anUnregisteredSendKeepsItsTimes() throws {
        let send = try #require(
            try F.sends([
                F.with(
                    F.send,
                    [
                        ("status", 410), ("reason", "Unregistered"),
                        ("unregistered_at", "2026-11-29T08:00:00.123456+01:00"),
                    ])
            ]).sends.first)
        #expect(send.reason == "Unregistered")
        #expect(send.unregisteredAt.map(F.micros) == F.micros("2026-11-29T07:00:00.123456Z"))
    }

    @Test(arguments: ["event_id", "notification_id", "app_id", "provider", "token", "channel", "sent_at", "status"])
    func requiredFields(field: String) throws {
        for value in [nil, JSONValue.null] {
            let rejection = try #require(try F.rejection(ofSend: F.with(F.send, field, value)))
            #expect(rejection.code == .missingField)
            #expect(rejection.message == "missing field \"\(field)\"")
        }
    }

    @Test(
        arguments: [
            ("status", JSONValue.int(700), "an HTTP status (100 to 599) or 0"),
            ("status", 99, "an HTTP status (100 to 599) or 0"),
            ("status", "200", "an HTTP status (100 to 599) or 0"),
            ("priority", 11, "an integer from 0 to 10"),
            ("latency_ms", -1, "an integer from 0 to 86400000"),
            ("token", "4f1a", "hex of even length 64 to 200"),
            ("provider", "APNS", "one of apns, fcm"),
            ("installation_id", "7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a2", "a UUID"),
            ("unregistered_at", 1_764_489_600_000, "an RFC 3339 time"),
            ("sent_at", "2026-11-30T10:00:00+0100", "an RFC 3339 time"),
            ("reason", "", "non-empty"),
            ("channel", "orders\u{0}", "U+0000"),
            ("campaign", .string(String(repeating: "c", count: 256)), "at most 255 bytes"),
            ("push_type", .string(String(repeating: "p", count: 65)), "at most 64 bytes"),
            ("app_id", .string(String(repeating: "a", count: 256)), "at most 255 bytes"),
        ] as [(String, JSONValue, String)])
    func invalidFields(field: String, value: JSONValue, expected: String) throws {
        let rejection = try #require(try F.rejection(ofSend: F.with(F.send, field, value)))
        #expect(rejection.code == .invalidField)
        #expect(rejection.message.hasPrefix("invalid field \"\(field)\": "))
        #expect(rejection.message.contains(expected), "\(rejection.message)")
    }

    @Test func anotherAppsSendIsRejectedAndTheRestStored() throws {
        let result = try F.sends([F.send, F.with(F.send, "app_id", "com.other.app"), F.send])
        #expect(result.sends.map(\.index) == [0, 2])
        #expect(result.rejections.map(\.code) == [.appMismatch])
        #expect(result.rejections.first?.index == 1)
    }

    @Test func checksRunInTheContractsOrder() throws {
        var send = F.with(
            F.send,
            [
                ("app_id", "com.other.app"), ("sent_at", "2025-01-01T00:00:00Z"), ("status", "ok"), ("channel", nil),
                ("pad", .string(String(repeating: "x", count: 33_000))),
            ])
        let expected: [(String, JSONValue?, RejectionCode)] = [
            ("pad", nil, .tooLarge), ("channel", "orders", .missingField), ("status", 200, .invalidField),
            ("app_id", .string(F.appID), .appMismatch), ("sent_at", "2026-11-30T10:00:00Z", .tooOld),
        ]
        for (field, fix, code) in expected {
            #expect(try F.rejection(ofSend: send)?.code == code)
            send = F.with(send, field, fix)
        }
        #expect(try F.rejection(ofSend: send) == nil)
    }

    @Test func theAgeWindowUsesSentAt() throws {
        let future = F.with(F.send, "sent_at", "2026-12-01T10:00:07Z")
        let rejection = try #require(try F.rejection(ofSend: future))
        #expect(rejection.code == .inFuture)
        #expect(
            rejection.message
                == "sent_at 2026-12-01T10:00:07.000000Z is more than 1 day after the server's receive time")
        var limits = IngestLimits()
        limits.maxAge = nil
        let backfill = F.with(F.send, "sent_at", "2024-02-29T12:00:00Z")
        #expect(try F.rejection(ofSend: backfill)?.code == .tooOld)
        #expect(try F.rejection(ofSend: backfill, limits: limits) == nil)
    }

    @Test func apnsTokensAreLowerCased() throws {
        let send = try #require(try F.sends([F.with(F.send, "token", .string(F.apnsToken.uppercased()))]).sends.first)
        #expect(send.token == F.apnsToken)
    }

    // MARK: JSON envelope

    @Test(arguments: [
        ("[]", 400, "invalid_field", "the body must be a JSON object, got an array"),
        ("{}", 400, "missing_field", "missing field \"sends\""),
        ("{\"sends\":{}}", 400, "invalid_field", "invalid field \"sends\": expected an array, got an object"),
        ("{\"sends\":[],\"sends\":[]}", 400, "invalid_field", "invalid field \"sends\": the key occurs more than once"),
        ("{\"sends\":[1,2,3]}", 413, "too_many_events", "the request has 3 sends, at most 2 are allowed"),
    ])
    func jsonEnvelopeErrors(body: String, status: Int, code: String, message: String) {
        var limits = IngestLimits()
        limits.maxEventsPerRequest = 2
        let error = #expect(throws: EnvelopeError.self) {
            try SendsValidator.validate(
                body: Array(body.utf8), format: .json, keyAppID: F.appID, receivedAt: F.receivedAt, limits: limits)
        }
        #expect(error == EnvelopeError(status: status, code: code, message: message))
    }

    @Test func aJSONBodyThatIsNotJSON() throws {
        // An empty NDJSON body is simply no sends.
        #expect(try F.ndjson("").sends.isEmpty && F.ndjson(" \n\r\n").rejections.isEmpty)
        let json = #expect(throws: EnvelopeError.self) {
            try SendsValidator.validate(
                body: Array("{\"sends\":[".utf8), format: .json, keyAppID: F.appID, receivedAt: F.receivedAt,
                limits: IngestLimits())
        }
        #expect(json?.code == "invalid_json")
        #expect(
            json?.message == "the body is not JSON: invalid JSON at byte 10: unexpected end of input, expected a value")
    }

    // MARK: NDJSON

    @Test func aBadLineIsRejectedAloneAndTheRestGoOn() throws {
        let good = F.send.jsonText
        let text =
            "\(good)\r\n\n  \n{\"event_id\": \"e1\", oops}\n\(F.with(F.send, "channel", nil).jsonText)\n[1]\n\(good)\n"
        let result = try F.ndjson(text)
        #expect(result.sends.map(\.index) == [0, 6])
        #expect(result.rejections.map(\.index) == [3, 4, 5])
        let notJSON = result.rejections[0]
        #expect(notJSON.code == .invalidField)
        #expect(notJSON.message == "line 4 is not JSON: invalid JSON at byte 19: unexpected 'o', expected a string key")
        #expect(notJSON.rawJSON == "{\"event_id\": \"e1\", oops}")
        #expect(notJSON.eventID == nil)
        #expect(result.rejections[1].code == .missingField)
        #expect(result.rejections[1].eventID == "c2b0b6a4-8b1e-4f5b-9a51-4d3a0f5d8e10")
        #expect(result.rejections[2].message == "invalid field \"event\": expected a JSON object, got an array")
    }

    @Test func linesThatCannotBeTextAreStillKept() throws {
        let body = Array("{\"a\":\"".utf8) + [0x00, 0xFF] + Array("\"}\n".utf8) + Array(F.send.jsonText.utf8)
        let result = try SendsValidator.validate(
            body: body, format: .ndjson, keyAppID: F.appID, receivedAt: F.receivedAt, limits: IngestLimits())
        #expect(result.sends.map(\.index) == [1])
        #expect(result.rejections.first?.rawJSON == "{\"a\":\"\u{FFFD}\u{FFFD}\"}")
        #expect(
            result.rejections.first?.message.hasPrefix(
                "line 1 is not JSON: invalid JSON at byte 6: unescaped control character 0x00") == true)
    }

    @Test func ndjsonLimitsCountSendsAndLineSizes() throws {
        var limits = IngestLimits()
        limits.maxEventsPerRequest = 2
        limits.maxEventBytes = 600
        let line = F.send.jsonText
        #expect(try F.ndjson("\n\(line)\n\n\(line)\n\n", limits: limits).sends.count == 2)
        let error = #expect(throws: EnvelopeError.self) { try F.ndjson("\(line)\n\(line)\n\(line)", limits: limits) }
        #expect(error?.status == 413 && error?.code == "too_many_events")
        let big = "{\"pad\":\"\(String(repeating: "x", count: 600))\" this is not even json"
        let result = try F.ndjson("\(big)\n\(line)", limits: limits)
        #expect(result.rejections.map(\.code) == [.tooLarge])
        #expect(result.sends.map(\.index) == [1])
    }

    @Test func ndjsonLineSplitting() {
        let lines = SendsValidator.ndjsonLines(Array("a\r\n\nb \t\r\n \n".utf8))
        #expect(lines.map(\.range) == [0..<1, 3..<3, 4..<7, 9..<10])
        #expect(lines.map(\.isBlank) == [false, true, false, true])
        #expect(SendsValidator.ndjsonLines([]).isEmpty)
        #expect(SendsValidator.ndjsonLines(Array("x".utf8)).map(\.range) == [0..<1])
    }
}
