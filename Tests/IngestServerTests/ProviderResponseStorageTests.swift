import Foundation
import Postgres
import PushLedgerSupport
import TestSupport
import Testing

/// `response_body` through `POST /v1/sends`: the derived and normalized fields as stored.
@Suite(.serialized) struct ProviderResponseStorageTests {
    let harness: Harness

    init() throws { harness = try Harness() }

    /// (provider, status, body, explicit reason, explicit unregistered_at) → stored (reason, unregistered_at).
    static let rows: [(String, Int, String?, String?, String?, String?, String?)] = [
        (
            "apns", 410, #"{"reason":"Unregistered","timestamp":1764500000000}"#, nil, nil, "Unregistered",
            "2025-11-30 10:53:20+00"
        ),
        ("apns", 410, #"{"reason":"ExpiredToken"}"#, nil, nil, "ExpiredToken", nil),
        (
            "fcm", 404,
            #"{"error":{"code":404,"status":"NOT_FOUND","#
                + #""details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","#
                + #""errorCode":"UNREGISTERED"}]}}"#,
            nil, nil, "UNREGISTERED", nil
        ),
        ("fcm", 503, #"{"error":{"code":503,"status":"UNAVAILABLE"}}"#, nil, nil, "UNAVAILABLE", nil),
        ("fcm", 502, "<html>Bad Gateway</html>", nil, nil, nil, nil),
        (
            "apns", 410, #"{"reason":"Unregistered","timestamp":1764500000000}"#, "ExpiredToken",
            "2026-11-01T00:00:00Z", "ExpiredToken", "2026-11-01 00:00:00+00"
        ),
        ("fcm", 400, nil, "messaging/invalid-registration-token", nil, "INVALID_ARGUMENT", nil),
        ("fcm", 400, nil, "messaging/payload-size-limit-exceeded", nil, "messaging/payload-size-limit-exceeded", nil),
    ]

    @Test func derivedReasonsAndUnregistrationTimesAreStoredWithTheBody() throws {
        var sends: [[String: Any]] = []
        for (i, row) in Self.rows.enumerated() {
            var send = Fixtures.send()
            send["event_id"] = String(format: "00000000-0000-4000-8000-%012d", i)
            send["provider"] = row.0
            if row.0 == "apns" { send["token"] = String(repeating: String(format: "%02x", i), count: 32) }
            send["status"] = row.1
            if let body = row.2 { send["response_body"] = body }
            if let reason = row.3 { send["reason"] = reason }
            if let at = row.4 { send["unregistered_at"] = at }
            sends.append(send)
        }
        let reply = try harness.sends(Fixtures.sends(sends))
        #expect(reply.status == 200 && reply.accepted == Self.rows.count, "\(reply.text)")

        let connection = try Connection.connect(url: harness.databaseURL)
        let stored = try connection.query(
            """
            select reason, to_char(unregistered_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') || '+00' as \
            unregistered_at,
                   response_body
              from sends order by event_id
            """)
        #expect(stored.count == Self.rows.count)
        for (row, expected) in zip(stored, Self.rows) {
            #expect(try row.decode("reason", as: String?.self) == expected.5)
            #expect(try row.decode("unregistered_at", as: String?.self) == expected.6)
            #expect(
                try row.decode("response_body", as: String?.self) == expected.2, "stored verbatim, readable as text")
        }
        // A JSON body reads as jsonb in psql.
        let code = try connection.query(
            """
            select response_body::jsonb #>> '{error,details,0,errorCode}' as c from sends where provider = 'fcm' \
            and status = 404
            """
        )
        #expect(try code[0].decode("c", as: String.self) == "UNREGISTERED")
    }

    @Test func aBodyOverFourKiBIsRejectedAloneAndKeptInTheFailedEventStore() throws {
        var big = Fixtures.send()
        big["response_body"] = String(repeating: "x", count: 4097)
        let reply = try harness.sends(Fixtures.sends([big, Fixtures.send()]))
        #expect(reply.status == 200 && reply.accepted == 1)
        #expect(reply.rejected.first?["error"] as? String == "invalid_field")
        #expect(try harness.count("select count(*)::int8 from failed_events where error_code = 'invalid_field'") == 1)
    }
}
