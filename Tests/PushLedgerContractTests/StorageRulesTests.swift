import Foundation
import Testing

@testable import PushLedgerContract
@testable import PushLedgerSupport

/// What storage needs of every accepted value (StorageRules): the requests that once got past
/// validation and failed in PostgreSQL are refused here, per event, with a clear message.
@Suite struct StorageRulesTests {
    static let received = RFC3339.date("2026-11-30T10:00:00Z")!
    static let installation = "7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a21"
    static let apnsToken = String(repeating: "ab", count: 32)

    static func telemetry(
        sentAt: String? = nil, _ events: [String], limits: IngestLimits = IngestLimits()
    ) throws -> ValidatedTelemetry {
        let sent = sentAt.map { ",\"sent_at\":\"\($0)\"" } ?? ""
        let body =
            "{\"app_id\":\"com.example.shop\",\"installation_id\":\"\(installation)\",\"platform\":\"android\"\(sent),"
            + "\"events\":[\(events.joined(separator: ","))]}"
        return try TelemetryValidator.validate(
            body: Array(body.utf8), keyAppID: "com.example.shop", receivedAt: received, limits: limits)
    }

    static func exposure(at: String = "2026-11-30T09:59:00Z", extra: String = "") -> String {
        #"{"event_id":"\#(UUID().uuidString.lowercased())","type":"experiment_exposure","at":"\#(at)","#
            + #""experiment":"e","variant":"v"\#(extra)}"#
    }

    static func sends(
        _ extra: String, status: Int = 410, sentAt: String = "2026-11-30T09:59:00Z"
    ) throws -> ValidatedSends {
        let body =
            #"{"sends":[{"event_id":"\#(UUID().uuidString.lowercased())","#
            + #""notification_id":"\#(UUID().uuidString.lowercased())","#
            + #""app_id":"com.example.shop","provider":"apns","token":"\#(apnsToken)","channel":"orders","#
            + #""installation_id":"\#(installation)","sent_at":"\#(sentAt)","status":\#(status)\#(extra)}]}"#
        return try SendsValidator.validate(
            body: Array(body.utf8), format: .json, keyAppID: "com.example.shop", receivedAt: received,
            limits: IngestLimits())
    }

    @Test(arguments: [
        "0000-01-01T00:00:00Z", "0001-01-01T00:00:00+23:59", "0000-12-31T23:59:59.999999Z", "9999-12-31T23:59:59-23:59",
    ])
    func timesStorageCannotHoldAreInvalid(at: String) throws {
        // No age limit (a back-fill): only the range check refuses `at`.
        var limits = IngestLimits()
        limits.maxAge = nil
        let result = try Self.telemetry([Self.exposure(at: at)], limits: limits)
        #expect(result.events.isEmpty)
        #expect(result.rejections.first?.code == .invalidField)
        #expect(
            result.rejections.first?.message.contains("0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z") == true)
    }

    @Test func aSentAtStorageCannotHoldRefusesTheEnvelope() throws {
        #expect(throws: EnvelopeError.self) { try Self.telemetry(sentAt: "0000-01-01T00:00:00Z", [Self.exposure()]) }
    }

    @Test func theEdgesOfTheRangeAreStorable() throws {
        #expect(StorageRules.timeProblem(RFC3339.microseconds("0001-01-01T00:00:00Z")!) == nil)
        #expect(StorageRules.timeProblem(RFC3339.microseconds("9999-12-31T23:59:59.999999Z")!) == nil)
        #expect(StorageRules.timeProblem(RFC3339.microseconds("0001-01-01T00:00:00+00:01")!) != nil)
        #expect(StorageRules.timeProblem(RFC3339.microseconds("9999-12-31T23:59:59-00:01")!) != nil)
    }

    @Test func aSkewCorrectedTimeOutOfRangeIsTooOldEvenWithoutAnAgeLimit() throws {
        var limits = IngestLimits()
        limits.maxAge = nil
        // at year 1, sent_at year 9999: corrected to ~8,000 years before the receive time.
        let result = try Self.telemetry(
            sentAt: "9999-01-01T00:00:00Z", [Self.exposure(at: "0001-01-01T00:00:00Z")], limits: limits)
        #expect(result.rejections.map(\.code) == [.tooOld])
    }

    @Test func unregisteredAtOutOfRangeIsInvalid() throws {
        let result = try Self.sends(",\"unregistered_at\":\"0000-06-01T00:00:00Z\"")
        #expect(result.sends.isEmpty)
        #expect(result.rejections.first?.code == .invalidField)
        #expect(result.rejections.first?.message.hasPrefix("invalid field \"unregistered_at\"") == true)
    }

    @Test(arguments: [-99_999_999_999_999, Int64.min / 1000, 253_402_300_800_000, -62_135_596_800_001])
    func anAPNsTimestampOutOfRangeDerivesNothing(millis: Int64) throws {
        let body = "{\\\"reason\\\":\\\"Unregistered\\\",\\\"timestamp\\\":\(millis)}"
        let result = try Self.sends(",\"response_body\":\"\(body)\"")
        let send = try #require(result.sends.first)
        #expect(send.reason == "Unregistered")
        #expect(send.unregisteredAt == nil)
    }

    @Test func anAPNsTimestampInRangeIsKept() throws {
        let result = try Self.sends(
            ",\"response_body\":\"{\\\"reason\\\":\\\"Unregistered\\\",\\\"timestamp\\\":1764496800000}\"")
        #expect(result.sends.first?.unregisteredAt == RFC3339.date("2025-11-30T10:00:00Z"))
    }

    @Test func aChannelIdTwiceInOneSnapshotIsInvalid() throws {
        let snapshot = { (second: String) in
            #"{"event_id":"\#(UUID().uuidString.lowercased())","type":"notification_settings","#
                + #""at":"2026-11-30T09:59:00Z","#
                + #""notifications_enabled":true,"channels":[{"id":"orders","importance":3},{"id":"\#(second)","#
                + #""importance":4}]}"#
        }
        let result = try Self.telemetry([snapshot("orders"), snapshot("Orders"), snapshot("o\\u0072ders")])
        #expect(result.events.count == 1)  // ids differ by case are two channels
        #expect(result.rejections.map(\.index) == [0, 2])
        #expect(
            result.rejections.first?.message
                == "invalid field \"channels[1].id\": the channel id \"orders\" occurs more than once in the snapshot")
    }

    @Test func aDuplicateKeyWithControlCharactersIsNamedPrintably() throws {
        let result = try Self.telemetry([
            Self.exposure(extra: ",\"\\u0000\":1,\"\\u0000\":2"), Self.exposure(extra: ",\"\\u202e\":1,\"\\u202e\":2"),
        ])
        #expect(
            result.rejections.map(\.message) == [
                "invalid field \"\\u{0}\": the key occurs more than once",
                "invalid field \"\\u{202E}\": the key occurs more than once",
            ])
        #expect(result.rejections.allSatisfy { !$0.message.utf8.contains(0) })
    }

    @Test func printableEscapesControlFormatAndSeparatorsAndCaps() {
        #expect(
            StorageRules.printable("a\u{0}b\u{1B}[31m\u{200B}\u{2028}é") == "a\\u{0}b\\u{1B}[31m\\u{200B}\\u{2028}é")
        #expect(StorageRules.printable(String(repeating: "x", count: 70)) == String(repeating: "x", count: 64) + "…")
    }

    @Test func appIDsAreComparedByteForByte() throws {
        let body =
            "{\"app_id\":\"com.\u{212A}ayak.app\",\"installation_id\":\"\(Self.installation)\","
            + "\"platform\":\"ios\",\"events\":[]}"
        #expect("com.\u{212A}ayak.app" == "com.Kayak.app")  // why: Swift's == is canonical equivalence
        #expect(
            throws: EnvelopeError(
                status: 403, code: "app_mismatch", message: "the batch's app_id is not the app of this key")
        ) {
            try TelemetryValidator.validate(
                body: Array(body.utf8), keyAppID: "com.Kayak.app", receivedAt: Self.received, limits: IngestLimits())
        }
        #expect(ContractFormat.sameAppID("com.Kayak.app", "com.Kayak.app"))
    }

    @Test func theParserStopsAtTheValueBudgetOfTheEventCap() throws {
        var limits = IngestLimits()
        limits.maxEventsPerRequest = 10
        #expect(limits.maxJSONValues == 10 * IngestLimits.jsonValuesPerEvent + 64)
        let padding = ",\"pad\":[" + Array(repeating: "0", count: limits.maxJSONValues).joined(separator: ",") + "]"
        let error = #expect(throws: EnvelopeError.self) {
            try Self.telemetry([Self.exposure(extra: padding)], limits: limits)
        }
        #expect(error?.code == "invalid_json")
        #expect(error?.message.contains("more than \(limits.maxJSONValues) values") == true)
        // Just under the budget parses.
        let fits = ",\"pad\":[" + Array(repeating: "0", count: limits.maxJSONValues - 20).joined(separator: ",") + "]"
        #expect(try Self.telemetry([Self.exposure(extra: fits)], limits: limits).events.count == 1)
    }

    @Test func failedTextKeepsABoundedPrefixWithLengthAndDigest() {
        let bytes = Array(repeating: UInt8(ascii: "a"), count: FailedText.maxStoredBytes - 1) + Array("é€".utf8) + [0]
        let text = FailedText(bytes[...])
        #expect(text.byteCount == bytes.count)
        #expect(text.sha256 == SHA256.hash(bytes))
        // Cut before the é that straddles the bound, never inside it.
        #expect(text.prefix.utf8.count == FailedText.maxStoredBytes - 1)
        #expect(!text.isComplete)
        let small = FailedText("{\"a\":\"\u{0}\"}")
        #expect(small.prefix == "{\"a\":\"\u{FFFD}\"}")
        #expect(small.isComplete)
    }

    @Test func aRejectionNamesItsInstallationAndToken() throws {
        let result = try Self.sends(",\"priority\":99")
        let rejection = try #require(result.rejections.first)
        #expect(rejection.subject.installationID == UUID(uuidString: Self.installation))
        #expect(rejection.subject.token == Self.apnsToken)
        #expect(
            FailedSubject.ofBody(
                Array("{\"installation_id\":\"\(Self.installation.uppercased())\"}".utf8), limits: IngestLimits()
            )
            .installationID == UUID(uuidString: Self.installation))
        #expect(FailedSubject(.object(JSONObject([("token", .string("a\u{0}b"))]))).token == nil)
    }
}
