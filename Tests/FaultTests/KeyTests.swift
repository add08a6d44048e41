import Foundation
import TestSupport
import Testing

/// Keys against the real server: missing, unknown, revoked, wrong scope and another app's keys
/// are refused; a key made or revoked while the server runs counts without a restart; no log
/// line and no database column holds a key, only its SHA-256.
@Suite("Keys")
struct KeyTests {
    @Test func everyWrongKeyIsRefusedAndKeysAppearOnlyAsHashes() throws {
        let database = try FaultDatabase.fresh()
        let url = database.url
        let otherTelemetry = try FaultDatabase.createKey(app: FaultDatabase.otherApp, scope: "telemetry", url)
        let otherSends = try FaultDatabase.createKey(app: FaultDatabase.otherApp, scope: "sends", url)
        let revoked = try FaultDatabase.createKey(app: FaultDatabase.app, scope: "telemetry", url)
        try database.revokeKey(revoked)
        let server = try ServeProcess(databaseURL: url, arguments: ["--log-level", "debug"])
        let telemetry = Fixtures.telemetry(count: 2)
        let send = Fixtures.sends([Fixtures.send()])

        func post(_ path: String, _ body: [UInt8], _ authorization: String?) throws -> RawReply {
            var headers = [("Content-Type", "application/json")]
            if let authorization { headers.append(("Authorization", authorization)) }
            let connection = try RawHTTPConnection(port: server.port)
            connection.write(RawRequest.make("POST", path, headers: headers, body: body))
            return try connection.readReply()
        }
        let unknown = "pl_t_" + UUID().uuidString.lowercased()
        let refusals: [(String, String, [UInt8], String?, Int)] = [
            ("missing", "/v1/telemetry", telemetry, nil, 401),
            ("not bearer", "/v1/telemetry", telemetry, "Basic \(database.telemetryKey)", 401),
            ("unknown", "/v1/telemetry", telemetry, "Bearer \(unknown)", 401),
            ("revoked", "/v1/telemetry", telemetry, "Bearer \(revoked)", 401),
            ("sends key on telemetry", "/v1/telemetry", telemetry, "Bearer \(database.sendsKey)", 403),
            ("telemetry key on sends", "/v1/sends", send, "Bearer \(database.telemetryKey)", 403),
            ("other app's telemetry key", "/v1/telemetry", telemetry, "Bearer \(otherTelemetry)", 403),
        ]
        for (name, path, body, authorization, status) in refusals {
            let reply = try post(path, body, authorization)
            #expect(reply.status == status, "\(name): \(reply.text)")
            #expect(reply.json?["message"] is String, "\(name)")
        }
        // Another app's sends key: the send is rejected as app_mismatch, nothing stored.
        let mismatch = try post("/v1/sends", send, "Bearer \(otherSends)")
        #expect(mismatch.status == 200 && mismatch.json?["accepted"] as? Int == 0, "\(mismatch.text)")
        #expect((mismatch.json?["rejected"] as? [[String: Any]])?.first?["error"] as? String == "app_mismatch")
        #expect(try database.count("select count(*)::int8 from event_ids") == 0)

        // A key made while the server runs works on its first request (a key not in memory waits
        // for a fresh read of the key table); revoked, it stops working as the change is heard.
        let late = try FaultDatabase.createKey(app: FaultDatabase.app, scope: "telemetry", url)
        #expect(try post("/v1/telemetry", Fixtures.telemetry(count: 1), "Bearer \(late)").status == 200)
        try database.revokeKey(late)
        waitUntil { (try? post("/v1/telemetry", Fixtures.telemetry(count: 1), "Bearer \(late)").status) == 401 }
        #expect(try post("/v1/telemetry", telemetry, "Bearer \(database.telemetryKey)").status == 200)

        // Only hashes: every key's SHA-256 is there, no column holds a key's text.
        let secrets = [database.telemetryKey, database.sendsKey, otherTelemetry, otherSends, revoked, late, unknown]
        let table = try database.connect().query(
            "select coalesce(string_agg(row_to_json(k)::text, ' '), '') from api_keys k")[0]
            .decode(0, as: String.self)
        for secret in secrets {
            #expect(!table.contains(secret) && !table.contains(String(secret.dropFirst(8))))
        }
        for secret in secrets.dropLast() {
            #expect(
                try database.count(
                    "select count(*)::int8 from api_keys where key_hash = sha256(convert_to(\(secret), 'UTF8'))") == 1)
        }
        // Keys never in logs (the server's, at debug level, included).
        server.send(SIGTERM)
        server.waitForExit()
        let log = server.logText
        #expect(log.contains("unknown key"))
        for secret in secrets {
            #expect(!log.contains(secret) && !log.contains(String(secret.dropFirst(8))), "a key in the server log")
        }
    }

    /// Lifetimes against the real server: a key made with `--expires` works until then and is
    /// answered 401 `key_expired` after; `keys rotate` gives an overlap in which the old and the
    /// new key both work, then only the new one; `keys list` shows each key's last use, which
    /// the server stores coarsely (here: at its shutdown flush).
    @Test func expiredKeysAreToldSoAndRotationOverlapsTwoKeys() throws {
        let database = try FaultDatabase.fresh()
        let url = database.url
        let shortLived = try FaultDatabase.pushledger(
            ["keys", "create", "--app", FaultDatabase.app, "--scope", "telemetry", "--expires", "3s"], url
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServeProcess(databaseURL: url)
        func post(_ key: String) throws -> RawReply {
            let connection = try RawHTTPConnection(port: server.port)
            connection.write(
                RawRequest.make(
                    "POST", "/v1/telemetry",
                    headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(key)")],
                    body: Fixtures.telemetry(count: 1)))
            return try connection.readReply()
        }
        #expect(try post(shortLived).status == 200)
        waitUntil { (try? post(shortLived).status) != 200 }
        let expired = try post(shortLived)
        #expect(expired.status == 401 && expired.json?["error"] as? String == "key_expired", "\(expired.text)")

        let oldID = try database.connect().query(
            "select id::text from api_keys where key_hash = sha256(convert_to(\(database.telemetryKey), 'UTF8'))")[0]
            .decode(0, as: String.self)
        let replacement = try FaultDatabase.pushledger(["keys", "rotate", oldID, "--overlap", "12s"], url)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(replacement.hasPrefix("pl_t") && replacement != database.telemetryKey)
        // The overlap: both keys of the app and scope are accepted, the new one from its first
        // request.
        #expect(try post(replacement).status == 200)
        #expect(try post(database.telemetryKey).status == 200)
        // The server hears of the old key's new expiry as it commits, and refuses it from then.
        waitUntil { (try? post(database.telemetryKey).status) != 200 }
        let old = try post(database.telemetryKey)
        #expect(old.status == 401 && old.json?["error"] as? String == "key_expired", "\(old.text)")
        #expect(try post(replacement).status == 200)

        server.send(SIGTERM)
        server.waitForExit()
        let list = try FaultDatabase.pushledger(["keys", "list", "--format", "json"], url)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        let byPrefix = Dictionary(uniqueKeysWithValues: rows.map { (($0["prefix"] as? String ?? "").dropLast(), $0) })
        for key in [shortLived, database.telemetryKey, replacement] {
            let row = try #require(byPrefix[key.prefix(12)])
            #expect(row["last_used_at"] is String, "\(row)")
            #expect(row["state"] as? String == (key == replacement ? "active" : "expired"))
        }
        #expect(byPrefix[database.sendsKey.prefix(12)]?["last_used_at"] is NSNull)
    }
}
