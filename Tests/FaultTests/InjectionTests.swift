import Foundation
import Postgres
import TestSupport
import Testing

/// Placements, channels, campaigns and reasons with quotes, backslashes, tabs, newlines, NUL,
/// COPY escapes and SQL fragments, mixed with ordinary events in the same request: each is
/// rejected with a reason or stored byte for byte, and the ordinary events around them are stored.
@Suite("Injection")
struct InjectionTests {
    static let hostile = [
        "it's", "say \"hi\"", "back\\slash", "tab\there", "new\nline", "cr\r\nlf", "nul\u{0}byte", "\\.", "\\N",
        "\\\\N",
        "'); drop table sends; --", "\" or 1=1 --", "$$; select pg_sleep(10); $$", "E'\\x00'", "%s%n%x",
        "\u{2028}\u{2029}",
        "émoji 📦", "orders\u{7F}", "a,b;c|d", "{\"json\":true}", "\\x41", "--", "/* comment */",
        "  leading and trailing  ",
    ]

    @Test func hostileStringsAreRejectedOrStoredVerbatimWithoutBreakingTheBatch() throws {
        let database = try FaultDatabase.fresh()
        let server = try ServeProcess(databaseURL: database.url)
        func post(_ path: String, _ body: [UInt8], key: String, type: String = "application/json") throws -> RawReply {
            let connection = try RawHTTPConnection(port: server.port)
            connection.write(
                RawRequest.make(
                    "POST", path, headers: [("Content-Type", type), ("Authorization", "Bearer \(key)")], body: body))
            return try connection.readReply()
        }

        // Sends: channel, campaign, reason; an ordinary send after each hostile one.
        var sends: [[String: Any]] = []
        var ordinary: [String] = []
        for text in Self.hostile {
            var send = Fixtures.send()
            send["channel"] = text
            send["campaign"] = text
            send["status"] = 400
            send["reason"] = text
            sends.append(send)
            let plain = Fixtures.send()
            ordinary.append(plain["event_id"] as! String)
            sends.append(plain)
        }
        // The same again as NDJSON, with new event ids (or they would be duplicates).
        let copies = sends.map { send in send.merging(["event_id": UUID().uuidString.lowercased()]) { $1 } }
        ordinary += copies.enumerated().filter { $0.offset % 2 == 1 }.map { $0.element["event_id"] as! String }
        for (ndjson, batch) in [(false, sends), (true, copies)] {
            let body = ndjson ? Fixtures.ndjson(batch) : Fixtures.sends(batch)
            let reply = try post(
                "/v1/sends", body, key: database.sendsKey, type: ndjson ? "application/x-ndjson" : "application/json")
            try #require(reply.status == 200, "\(reply.text)")
            try checkEach(reply, sends: batch, database: database)
        }

        // Telemetry: a prompt's placement and a receipt's channel.
        var events: [[String: Any]] = []
        for text in Self.hostile {
            var prompt = Fixtures.exposure()
            prompt["type"] = "permission_prompt"
            prompt["placement"] = text
            prompt["prompt"] = "system"
            prompt["result"] = "granted"
            prompt["experiment"] = nil
            prompt["variant"] = nil
            var receipt = Fixtures.exposure()
            receipt["type"] = "notification_received"
            receipt["notification_id"] = UUID().uuidString.lowercased()
            receipt["channel"] = text
            receipt["experiment"] = nil
            receipt["variant"] = nil
            let plain = Fixtures.exposure()
            ordinary.append(plain["event_id"] as! String)
            events += [prompt, receipt, plain]
        }
        let reply = try post("/v1/telemetry", Fixtures.telemetry(events: events), key: database.telemetryKey)
        try #require(reply.status == 200, "\(reply.text)")
        let rejected = Dictionary(uniqueKeysWithValues: reply.rejectedList.map { ($0.index, $0) })
        for (index, event) in events.enumerated() {
            let id = event["event_id"] as! String
            if let rejection = rejected[index] {
                #expect(
                    !rejection.message.isEmpty && ["invalid_field", "missing_field"].contains(rejection.error),
                    "\(rejection)")
                continue
            }
            let eventID = UUID(uuidString: id)!
            let connection = try database.connect()
            let rows: QueryResult, expected: String?
            switch event["type"] as! String {
            case "permission_prompt":
                rows = try connection.query("select placement from permission_prompts where event_id = \(eventID)")
                expected = event["placement"] as? String
            case "notification_received":
                rows = try connection.query("select channel from notification_receipts where event_id = \(eventID)")
                expected = event["channel"] as? String
            default:
                rows = try connection.query("select variant from experiment_exposures where event_id = \(eventID)")
                expected = "first_screen"
            }
            #expect(
                try rows.first?.decode(0, as: String.self) == expected,
                "event \(index) (\(event["type"]!)) not stored verbatim")
        }
        // Every ordinary event is stored, and the tables are all still there.
        let stored = try database.storedEventIDs()
        #expect(Set(ordinary).isSubset(of: stored))
        #expect(
            try database.count(
                "select count(*)::int8 from pg_tables where tablename in ('sends', 'event_ids', 'api_keys')") == 3)
    }

    /// Each send is listed as rejected with a reason, or stored with its strings byte for byte.
    func checkEach(_ reply: RawReply, sends: [[String: Any]], database: FaultDatabase) throws {
        let rejected = Dictionary(uniqueKeysWithValues: reply.rejectedList.map { ($0.index, $0) })
        let connection = try database.connect()
        for (index, send) in sends.enumerated() {
            if let rejection = rejected[index] {
                #expect(index % 2 == 0, "an ordinary send was rejected: \(rejection)")
                #expect(
                    !rejection.message.isEmpty && ["invalid_field", "missing_field"].contains(rejection.error),
                    "\(rejection)")
                continue
            }
            let id = send["event_id"] as! String
            let rows = try connection.query(
                """
                select channel, coalesce(campaign, '<null>'), coalesce(reason, '<null>') from sends where \
                event_id = \(UUID(uuidString: id)!)
                """
            )
            try #require(rows.count == 1, "send \(index) not stored")
            #expect(try rows[0].decode(0, as: String.self) == send["channel"] as? String)
            #expect(try rows[0].decode(1, as: String.self) == (send["campaign"] as? String ?? "<null>"))
            #expect(try rows[0].decode(2, as: String.self) == (send["reason"] as? String ?? "<null>"))
        }
    }
}

extension RawReply {
    /// The 200 body's `rejected` entries.
    var rejectedList: [(index: Int, error: String, message: String)] {
        (json?["rejected"] as? [[String: Any]] ?? []).map {
            ($0["index"] as? Int ?? -1, $0["error"] as? String ?? "", $0["message"] as? String ?? "")
        }
    }
}
