import Foundation
import Testing

@testable import PushLedgerContract
@testable import PushLedgerSupport

/// Every mapping rule of telemetry-v1.md "Raw provider responses on sends", one row each.
@Suite struct ProviderResponseTests {
    typealias F = Fixture

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var provider: PushProvider
        var status: Int
        var body: String?
        var reason: String? = nil
        var unregisteredAt: String? = nil
        var expectedReason: String?
        var expectedUnregisteredAt: String? = nil
        var testDescription: String { name }
    }

    static let fcmV1 = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let cases: [Case] =
        [
            Case(
                name: "APNs 410 with timestamp", provider: .apns, status: 410,
                body: #"{"reason":"Unregistered","timestamp":1764500000000}"#,
                expectedReason: "Unregistered", expectedUnregisteredAt: "2025-11-30T10:53:20Z"),
            Case(
                name: "APNs 410 without timestamp", provider: .apns, status: 410, body: #"{"reason":"ExpiredToken"}"#,
                expectedReason: "ExpiredToken"),
            Case(
                name: "APNs 400 reason, timestamp ignored off 410", provider: .apns, status: 400,
                body: #"{"reason":"BadDeviceToken","timestamp":1764500000000}"#, expectedReason: "BadDeviceToken"),
            Case(
                name: "APNs 2xx derives nothing", provider: .apns, status: 200, body: #"{"reason":"Odd"}"#,
                expectedReason: nil),
            Case(name: "APNs empty 200 body", provider: .apns, status: 200, body: "", expectedReason: nil),
            Case(
                name: "FCM with FcmError details", provider: .fcm, status: 404,
                body:
                    #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","#
                    + #""details":[{"@type":"type.googleapis.com/google.rpc.BadRequest"},{"@type":"\#(fcmV1)","#
                    + #""errorCode":"UNREGISTERED"}]}}"#,
                expectedReason: "UNREGISTERED"),
            Case(
                name: "FCM without FcmError details", provider: .fcm, status: 503,
                body:
                    #"{"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE"}}"#,
                expectedReason: "UNAVAILABLE"),
            Case(
                name: "FCM details without the FcmError entry", provider: .fcm, status: 400,
                body:
                    #"{"error":{"code":400,"status":"INVALID_ARGUMENT","#
                    + #""details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[]}]}}"#,
                expectedReason: "INVALID_ARGUMENT"),
            Case(
                name: "FCM success body", provider: .fcm, status: 200, body: #"{"name":"projects/p/messages/0:1"}"#,
                expectedReason: nil),
            Case(
                name: "FCM 404 never sets unregistered_at", provider: .fcm, status: 410,
                body: #"{"error":{"status":"NOT_FOUND","timestamp":1764500000000}}"#, expectedReason: "NOT_FOUND"),
            Case(
                name: "non-JSON body (APNs)", provider: .apns, status: 503, body: "<html>Service Unavailable</html>",
                expectedReason: nil),
            Case(name: "non-JSON body (FCM)", provider: .fcm, status: 502, body: "Bad Gateway", expectedReason: nil),
            Case(
                name: "JSON without the members", provider: .apns, status: 410, body: #"{"other":1}"#,
                expectedReason: nil),
            Case(
                name: "JSON that is not an object", provider: .fcm, status: 500, body: #"["INTERNAL"]"#,
                expectedReason: nil),
            Case(
                name: "a reason that is not a string", provider: .apns, status: 400, body: #"{"reason":42}"#,
                expectedReason: nil),
            Case(
                name: "explicit reason wins over the body", provider: .apns, status: 410,
                body: #"{"reason":"Unregistered","timestamp":1764500000000}"#, reason: "ExpiredToken",
                expectedReason: "ExpiredToken", expectedUnregisteredAt: "2025-11-30T10:53:20Z"),
            Case(
                name: "explicit unregistered_at wins over the body", provider: .apns, status: 410,
                body: #"{"reason":"Unregistered","timestamp":1764500000000}"#, unregisteredAt: "2026-11-01T00:00:00Z",
                expectedReason: "Unregistered", expectedUnregisteredAt: "2026-11-01T00:00:00Z"),
            Case(
                name: "explicit Admin SDK code wins over an FCM body, normalized", provider: .fcm, status: 404,
                body: #"{"error":{"status":"NOT_FOUND"}}"#, reason: "messaging/registration-token-not-registered",
                expectedReason: "UNREGISTERED"),
            Case(
                name: "no body keeps the explicit fields", provider: .apns, status: 410, body: nil,
                reason: "Unregistered",
                expectedReason: "Unregistered"),
        ]
        + ProviderResponse.adminSDKCodes.sorted { $0.key < $1.key }.map { code, name in
            Case(name: "Admin SDK \(code)", provider: .fcm, status: 400, body: nil, reason: code, expectedReason: name)
        } + [
            Case(
                name: "other messaging/ codes stay as given", provider: .fcm, status: 400, body: nil,
                reason: "messaging/payload-size-limit-exceeded", expectedReason: "messaging/payload-size-limit-exceeded"
            )
        ]

    @Test(arguments: cases)
    func theSendValidatorStoresTheDerivedFields(_ c: Case) throws {
        var fields: [(String, JSONValue?)] = [
            ("provider", .string(c.provider.rawValue)), ("status", .int(c.status)),
            ("reason", c.reason.map(JSONValue.string)), ("unregistered_at", c.unregisteredAt.map(JSONValue.string)),
            ("response_body", c.body.map(JSONValue.string)),
        ]
        if c.provider == .fcm { fields.append(("token", "fcm-token")) }
        let send = try #require(try F.sends([F.with(F.send, fields)]).sends.first)
        #expect(send.reason == c.expectedReason)
        #expect(send.unregisteredAt.map(F.micros) == c.expectedUnregisteredAt.map(F.micros))
        #expect(send.responseBody == c.body, "stored as given")
    }

    @Test func aBodyOverFourKiBIsRejectedAndOneAtTheLimitIsKept() throws {
        let atLimit = String(repeating: "x", count: ProviderResponse.maxBodyBytes)
        #expect(try F.sends([F.with(F.send, "response_body", .string(atLimit))]).sends.first?.responseBody == atLimit)
        let rejection = try #require(try F.rejection(ofSend: F.with(F.send, "response_body", .string(atLimit + "x"))))
        #expect(rejection.code == .invalidField)
        #expect(rejection.message.contains("response_body") && rejection.message.contains("at most 4096 bytes"))
        let notString = try #require(try F.rejection(ofSend: F.with(F.send, "response_body", .object(JSONObject()))))
        #expect(notString.code == .invalidField && notString.message.contains("expected a string"))
    }

    @Test func aDerivedReasonTooLongToStoreIsNotDerived() {
        let long = String(repeating: "R", count: FieldLimits.identifier + 1)
        let derived = ProviderResponse.derive(provider: .apns, status: 400, body: #"{"reason":"\#(long)"}"#)
        #expect(derived == ProviderResponse.Derived())
    }
}
