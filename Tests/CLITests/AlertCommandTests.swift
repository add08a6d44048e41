import Foundation
import TestSupport
import Testing

@Suite struct AlertCommandTests {
    @Test func exitStatusIsLikeDiff() throws {
        let env = ["DATABASE_URL": try TestDatabase.fresh(prefix: "alertcli")]
        let quiet = try CommandRunner.run(["alert", "check", "--format", "json"], environment: env)
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(try JSONSerialization.jsonObject(with: Data(quiet.stdout.utf8)) is [String: Any])

        let unreachable = try CommandRunner.run(
            ["alert", "check"], environment: ["DATABASE_URL": "postgres://x@127.0.0.1:1/x"])
        #expect(unreachable.status == 2)
        #expect(unreachable.stderr.hasPrefix("pushledger alert: "))

        let rules = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID()).json")
        try #"{"silent_loss_up": {"min_delta": "two"}}"#.write(to: rules, atomically: true, encoding: .utf8)
        let badRules = try CommandRunner.run(["alert", "check", "--rules", rules.path], environment: env)
        #expect(badRules.status == 2)
        #expect(badRules.stderr.contains(rules.lastPathComponent))

        let badWebhook = try CommandRunner.run(["alert", "check", "--webhook", "ftp://example"], environment: env)
        #expect(badWebhook.status == 2)

        let list = try CommandRunner.run(["alert", "list", "--since", "2026-01-01"], environment: env)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(try CommandRunner.run(["alert", "check", "--at", "yesterday"], environment: env).status == 64)
    }
}
