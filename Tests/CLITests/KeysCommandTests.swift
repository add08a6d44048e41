import Foundation
import TestSupport
import Testing

@Suite struct KeysCommandTests {
    let env: [String: String]

    init() throws {
        env = ["DATABASE_URL": try TestDatabase.fresh(prefix: "keys")]
    }

    @Test func createPrintsOnlyTheSecretAndListNeverShowsIt() throws {
        let created = try CommandRunner.run(
            ["keys", "create", "--app", "com.example.shop", "--scope", "telemetry"], environment: env)
        #expect(created.status == 0, "\(created.stderr)")
        let secret = created.stdout.trimmingCharacters(in: .newlines)
        #expect(secret.hasPrefix("pl_t_") || secret.hasPrefix("pl_t"))
        #expect(created.stdout.split(separator: "\n").count == 1)
        #expect(!created.stderr.contains(secret))

        for format in ["table", "json", "csv"] {
            let list = try CommandRunner.run(["keys", "list", "--format", format], environment: env)
            #expect(list.status == 0)
            #expect(list.stdout.contains("com.example.shop"))
            #expect(!list.stdout.contains(secret))
        }
        let json = try CommandRunner.run(["keys", "list", "--format", "json"], environment: env)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows[0]["scope"] as? String == "telemetry")
        #expect(rows[0]["revoked_at"] is NSNull)
    }

    @Test func rateLimitsAreSetAtCreationChangedAndRemoved() throws {
        let created = try CommandRunner.run(
            ["keys", "create", "--app", "a", "--scope", "sends", "--rate", "50", "--burst", "400"], environment: env)
        #expect(created.status == 0, "\(created.stderr)")
        func listed() throws -> [String: Any] {
            let json = try CommandRunner.run(["keys", "list", "--format", "json"], environment: env)
            return try #require(
                (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])?.first)
        }
        var row = try listed()
        #expect(row["rate"] as? Double == 50)
        #expect(row["burst"] as? Int == 400)
        let id = try #require(row["id"] as? String)
        #expect(try CommandRunner.run(["keys", "update", id, "--rate", "2.5"], environment: env).status == 0)
        row = try listed()
        #expect(row["rate"] as? Double == 2.5)
        #expect(row["burst"] as? Int == 3)  // default burst: one second's events, rounded up
        #expect(try CommandRunner.run(["keys", "update", id, "--no-rate"], environment: env).status == 0)
        #expect(try listed()["rate"] is NSNull)
        // Bad usage changes nothing.
        for arguments in [
            ["update", id], ["update", id, "--rate", "0"], ["update", id, "--burst", "5"],
            ["update", id, "--rate", "1", "--no-rate"],
        ] {
            let refused = try CommandRunner.run(["keys"] + arguments, environment: env)
            #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
        }
        #expect(
            try CommandRunner.run(["keys", "update", UUID().uuidString, "--rate", "1"], environment: env).status == 1)
        #expect(try listed()["rate"] is NSNull)
    }

    @Test func revokeMarksTheKeyAndRefusesUnknownIds() throws {
        _ = try CommandRunner.run(["keys", "create", "--app", "a", "--scope", "sends"], environment: env)
        let json = try CommandRunner.run(["keys", "list", "--format", "json", "--app", "a"], environment: env)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let id = try #require(rows.first?["id"] as? String)
        #expect(try CommandRunner.run(["keys", "revoke", id], environment: env).status == 0)
        let again = try CommandRunner.run(["keys", "revoke", id], environment: env)
        #expect(again.status == 1)
        #expect(again.stderr.contains("no active key with id"))
        let bad = try CommandRunner.run(["keys", "revoke", "not-a-uuid"], environment: env)
        #expect(bad.status == 64)
        let after = try CommandRunner.run(["keys", "list", "--format", "csv", "--app", "a"], environment: env)
        let lines = after.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 2)
        #expect(lines.last?.hasSuffix(",") == false)  // revoked_at filled
    }

    @Test func expiresTakesUnitsAndRotateKeepsTheOldKeyForTheOverlap() throws {
        for (text, seconds) in [("90s", 90.0), ("45m", 2_700.0), ("12h", 43_200.0), ("90d", 7_776_000.0)] {
            let created = try CommandRunner.run(
                ["keys", "create", "--app", text, "--scope", "sends", "--expires", text], environment: env)
            #expect(created.status == 0, "\(created.stderr)")
            let row = try #require(try listed(app: text).first)
            let expires = try #require((row["expires_at"] as? String).flatMap(instant))
            let createdAt = try #require((row["created_at"] as? String).flatMap(instant))
            #expect(abs(expires.timeIntervalSince(createdAt) - seconds) < 5, "\(text)")
            #expect(row["state"] as? String == "active" && row["last_used_at"] is NSNull)
        }
        #expect(
            try CommandRunner.run(
                ["keys", "create", "--app", "a", "--scope", "sends", "--expires", "soon"], environment: env
            ).status == 64)

        let old = try #require(try listed(app: "90d").first?["id"] as? String)
        let rotated = try CommandRunner.run(
            ["keys", "rotate", old, "--overlap", "1h", "--expires", "30d"], environment: env)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.hasPrefix("pl_s") && rotated.stdout.split(separator: "\n").count == 1)
        let rows = try listed(app: "90d")
        #expect(rows.count == 2 && rows.allSatisfy { $0["state"] as? String == "active" })
        #expect(try CommandRunner.run(["keys", "rotate", old], environment: env).status == 64)
        let table = try CommandRunner.run(["keys", "list"], environment: env)
        #expect(table.stdout.split(separator: "\n").allSatisfy { $0.count <= 120 })
        #expect(table.stdout.contains("last_used"))
        #expect(try CommandRunner.run(["keys", "revoke", old], environment: env).status == 0)
        let again = try CommandRunner.run(["keys", "rotate", old, "--overlap", "1h"], environment: env)
        #expect(again.status == 1 && again.stderr.contains("no active, unexpired key"))
    }

    private func instant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    private func listed(app: String) throws -> [[String: Any]] {
        let json = try CommandRunner.run(["keys", "list", "--format", "json", "--app", app], environment: env)
        return try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
    }

    @Test func createNeedsAppAndAValidScope() throws {
        #expect(try CommandRunner.run(["keys", "create", "--scope", "sends"], environment: env).status == 64)
        #expect(
            try CommandRunner.run(["keys", "create", "--app", "a", "--scope", "admin"], environment: env).status == 64)
    }

    @Test func retentionSaysWhatItDropped() throws {
        let result = try CommandRunner.run(["retention", "--keep", "400d", "--ensure-ahead"], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.isEmpty)
        #expect(try CommandRunner.run(["retention", "--keep", "soon"], environment: env).status == 64)
    }
}
