import Foundation
import Testing

@testable import PushLedgerContract
@testable import PushLedgerSupport

/// The sender libraries' rule table (Tests/Fixtures/sender-fields.json): the Python, Node and Go
/// libraries turn each row's request and answer into its `send`; here every such send goes
/// through the server's own `SendsValidator`, and every raw answer through `ProviderResponse`, so
/// the server stores exactly what the libraries derive and would derive the same reason itself.
@Suite("Sender libraries' rule table")
struct SenderFieldsTableTests {
    struct Row {
        var name: String
        var provider: PushProvider
        var status: Int
        /// The provider's answer body as it came, nil when no answer came.
        var body: String?
        /// The send the libraries post, without `event_id`.
        var send: [String: Any]
        /// What the server derives and stores beside it (Web Push: `push_service`).
        var stored: [String: Any]
    }

    /// The table's app id and its rows as JSON objects (the APNs and FCM rows, then Web Push's).
    static func rawTable() throws -> (appID: String, rows: [[String: Any]]) {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/sender-fields.json")
        let table = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let rows = try #require(table["rows"] as? [[String: Any]])
        let webPush = try #require(table["webpush_rows"] as? [[String: Any]])
        return (try #require(table["app_id"] as? String), rows + webPush)
    }

    static func table() throws -> (appID: String, rows: [Row], refused: Int) {
        let (appID, rows) = try rawTable()
        var out: [Row] = []
        for row in rows {
            guard let send = row["send"] as? [String: Any] else { continue }
            let answer = try #require(row["answer"] as? [String: Any])
            let providerName = try #require(row["provider"] as? String)
            out.append(
                Row(
                    name: try #require(row["name"] as? String),
                    provider: try #require(PushProvider(rawValue: providerName)),
                    status: try #require(answer["status"] as? Int), body: try expanded(answer, "body"), send: send,
                    stored: row["stored"] as? [String: Any] ?? [:]))
        }
        return (appID, out, rows.count - out.count)
    }

    /// A fixture value, or the long one its `KEY_repeat` spells out (prefix, repeat × times, suffix).
    static func expanded(_ container: [String: Any], _ key: String) throws -> String? {
        if let value = container[key] as? String { return value }
        guard let spec = container[key + "_repeat"] as? [String: Any] else { return nil }
        let unit = try #require(spec["repeat"] as? String)
        let times = try #require(spec["times"] as? Int)
        let (prefix, suffix) = (spec["prefix"] as? String ?? "", spec["suffix"] as? String ?? "")
        return prefix + String(repeating: unit, count: times) + suffix
    }

    /// The server's reading of one send, received at its `sent_at`.
    static func check(_ send: [String: Any], appID: String, eventID: Int) throws -> ValidatedSends {
        var send = send
        send["event_id"] = String(format: "c2b0b6a4-8b1e-4f5b-9a51-%012x", eventID)
        let body = try JSONSerialization.data(withJSONObject: ["sends": [send]])
        let sentAt = try #require(time(send["sent_at"]))
        return try SendsValidator.validate(
            body: Array(body), format: .json, keyAppID: appID, receivedAt: sentAt, limits: IngestLimits())
    }

    /// The stored result of a send the server must accept.
    static func validate(_ send: [String: Any], appID: String, eventID: Int) throws -> SendResult {
        let result = try check(send, appID: appID, eventID: eventID)
        #expect(result.rejections.isEmpty, "\(result.rejections)")
        return try #require(result.sends.first)
    }

    static func time(_ value: Any?) -> Date? { (value as? String).flatMap { RFC3339.date($0) } }

    @Test func theTableCoversEveryProviderAndOutcome() throws {
        let (_, rows, refused) = try Self.table()
        #expect(rows.count >= 15 && refused >= 3)
        #expect(Set(rows.map(\.provider)) == [.apns, .fcm, .webpush])
        #expect(Set(rows.compactMap { $0.send["urgency"] as? String }).count >= 2)
        #expect(rows.contains { $0.send["topic"] != nil } && rows.contains { $0.send["ttl_seconds"] as? Int == 0 })
        #expect(Set(rows.compactMap { $0.send["message_kind"] as? String }) == ["notification", "data", "hybrid"])
        #expect(Set(rows.compactMap { $0.send["mutable_content"] as? Bool }) == [true, false])
        #expect(rows.contains { $0.send["unregistered_at"] != nil } && rows.contains { $0.status == 0 })
    }

    @Test func theServerStoresEverySendAsTheLibrariesDeriveIt() throws {
        let (appID, rows, _) = try Self.table()
        for (n, row) in rows.enumerated() {
            let send = row.send
            let stored = try Self.validate(send, appID: appID, eventID: n)
            let notificationID = stored.notificationID.uuidString.lowercased()
            // Web Push names them Topic and TTL; the server stores them as the collapse id and expiry.
            let collapseID = send["collapse_id"] ?? send["topic"]
            let ttl = (send["ttl_seconds"] as? Int).map { Double($0) }
            let expiresAt =
                Self.time(send["expires_at"]) ?? ttl.flatMap { Self.time(send["sent_at"])?.addingTimeInterval($0) }
            let expected: [(String, Bool)] = [
                ("notification_id", notificationID == send["notification_id"] as? String),
                ("app_id", stored.appID == send["app_id"] as? String),
                ("provider", stored.provider.rawValue == send["provider"] as? String),
                ("token", stored.token == send["token"] as? String),
                ("channel", stored.channel == send["channel"] as? String),
                ("campaign", stored.campaign == send["campaign"] as? String),
                ("sent_at", stored.sentAt == Self.time(send["sent_at"])),
                ("status", stored.status == send["status"] as? Int),
                ("reason", stored.reason == send["reason"] as? String),
                ("apns_id", stored.apnsID == send["apns_id"] as? String),
                ("unregistered_at", stored.unregisteredAt == Self.time(send["unregistered_at"])),
                ("priority", stored.priority == send["priority"] as? Int),
                ("push_type", stored.pushType == send["push_type"] as? String),
                ("environment", stored.environment == send["environment"] as? String),
                ("latency_ms", stored.latencyMs == send["latency_ms"] as? Int),
                ("response_body", stored.responseBody == send["response_body"] as? String),
                ("collapse_id", stored.collapseID == collapseID as? String),
                ("expires_at", stored.expiresAt == expiresAt),
                ("topic", stored.collapseID == collapseID as? String),
                ("ttl_seconds", stored.expiresAt == expiresAt),
                ("urgency", stored.urgency?.rawValue == send["urgency"] as? String),
                ("push_service", stored.pushService?.rawValue == row.stored["push_service"] as? String),
                ("mutable_content", stored.mutableContent == send["mutable_content"] as? Bool),
                ("message_kind", stored.messageKind?.rawValue == send["message_kind"] as? String),
            ]
            for (field, same) in expected where !same { Issue.record("\(row.name): \(field) stored differently") }
            let known = Set(expected.map(\.0))
            #expect(Set(send.keys).isSubset(of: known), "\(row.name): a field the contract does not name")
        }
    }

    /// The libraries read `reason` and `unregistered_at` out of the raw answer; the server reads the
    /// same out of `response_body` when they are left out, and both agree on every row.
    @Test func theServerDerivesTheSameReasonFromTheRawAnswer() throws {
        let (appID, rows, _) = try Self.table()
        for (n, row) in rows.enumerated() {
            let derived = row.body.map { ProviderResponse.derive(provider: row.provider, status: row.status, body: $0) }
            #expect(derived?.reason == row.send["reason"] as? String, "\(row.name)")
            let unregistered = derived?.unregisteredAt.map { RFC3339.date(microseconds: $0) }
            #expect(unregistered == Self.time(row.send["unregistered_at"]), "\(row.name)")
            guard row.send["response_body"] != nil else { continue }
            var bare = row.send
            bare["reason"] = nil
            bare["unregistered_at"] = nil
            let stored = try Self.validate(bare, appID: appID, eventID: 1000 + n)
            #expect(stored.reason == row.send["reason"] as? String, "\(row.name)")
            #expect(stored.unregisteredAt == Self.time(row.send["unregistered_at"]), "\(row.name)")
        }
    }

    /// What the libraries refuse at the call the server would refuse too: the first send of the
    /// table with the row's wrong value put in (or its missing field left out) is rejected alike.
    @Test func theServerRefusesWhatTheLibrariesRefuse() throws {
        let (appID, raw) = try Self.rawTable()
        let accepted = try Self.table().rows
        let refused = raw.filter { $0["error"] != nil }
        #expect(refused.count >= 3)
        for (n, row) in refused.enumerated() {
            let error = try #require(row["error"] as? [String: String])
            let (field, report) = (try #require(error["field"]), try #require(row["report"] as? [String: Any]))
            let answer = try #require(row["answer"] as? [String: Any])
            let provider = try #require(PushProvider(rawValue: row["provider"] as? String ?? ""))
            var send = try #require(accepted.first { $0.provider == provider }?.send)
            switch field {
            case "notification_id": send[field] = report[field] is NSNull ? nil : report[field]
            case "status": send[field] = answer[field]
            case "channel": send[field] = try Self.expanded(report, field)
            case "token" where provider == .webpush:
                // An empty endpoint is a missing one at the call: the send leaves the token out.
                let endpoint = try Self.expanded(try #require(row["request"] as? [String: Any]), "endpoint")
                send[field] = endpoint?.isEmpty == false ? endpoint : nil
            default: send[field] = nil
            }
            let result = try Self.check(send, appID: appID, eventID: 2000 + n)
            let rejection = try #require(result.rejections.first, "\(row["name"] ?? "")")
            #expect(rejection.code.rawValue == error["code"] && rejection.message.contains(field), "\(rejection)")
        }
    }
}
