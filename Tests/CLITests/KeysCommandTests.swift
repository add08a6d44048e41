import Foundation
import TestSupport
import Testing

@Suite struct KeysCommandTests {
    let env: [String: String]

    init() throws {
        env = ["DATABASE_URL": try TestDatabase.fresh(prefix: "keys")]
    }

    @Test func createPrintsOnlyTheSecretAndListNeverShowsIt() throws {
        let created = try CommandRunner.run(["keys", "create", "--app", "com.example.shop", "--scope", "telemetry"], environment: env)
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

    @Test func createNeedsAppAndAValidScope() throws {
        #expect(try CommandRunner.run(["keys", "create", "--scope", "sends"], environment: env).status == 64)
        #expect(try CommandRunner.run(["keys", "create", "--app", "a", "--scope", "admin"], environment: env).status == 64)
    }

    @Test func retentionSaysWhatItDropped() throws {
        let result = try CommandRunner.run(["retention", "--keep", "400d", "--ensure-ahead"], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.isEmpty)
        #expect(try CommandRunner.run(["retention", "--keep", "soon"], environment: env).status == 64)
    }
}
