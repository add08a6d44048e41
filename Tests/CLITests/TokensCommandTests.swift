import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct TokensCommandTests {
    let url: String

    init() throws { url = try TestDatabase.fresh(prefix: "tokens") }

    private func send(_ i: Int, app: String, hoursAgo: Double, status: Int, reason: String) -> String {
        let stamp = ISO8601DateFormatter().string(
            from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - hoursAgo * 3600).rounded(.down)))
        let (event, notification) = (
            String(format: "%08x-0000-4000-8000-%012x", 1, i), String(format: "%08x-0000-4000-8000-%012x", 2, i)
        )
        return #"{"event_id":"\#(event)","notification_id":"\#(notification)","app_id":"\#(app)","provider":"fcm","#
            + #""token":"fcm-token-\#(i)","channel":"orders","sent_at":"\#(stamp)","status":\#(status),"#
            + #""reason":"\#(reason)"}"#
    }

    private func importSends(_ lines: [String], app: String) throws {
        let result = try CommandRunner.run(
            ["import", "sends", "-", "--app", app], environment: ["DATABASE_URL": url],
            input: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func listsTheAppsInvalidTokensInEveryFormat() throws {
        try importSends(
            [
                send(1, app: "com.example.shop", hoursAgo: 5, status: 404, reason: "UNREGISTERED"),
                send(
                    2, app: "com.example.shop", hoursAgo: 3, status: 400,
                    reason: "messaging/registration-token-not-registered"),
                send(3, app: "com.example.shop", hoursAgo: 2, status: 503, reason: "UNAVAILABLE"),
            ], app: "com.example.shop")
        try importSends(
            [send(4, app: "com.example.other", hoursAgo: 1, status: 404, reason: "UNREGISTERED")],
            app: "com.example.other")
        try TestDatabase.waitForFeedHorizon(on: Connection.connect(url: url))

        let ndjson = try CommandRunner.run(
            ["tokens", "invalid", "--app", "com.example.shop", "--format", "ndjson"], environment: ["DATABASE_URL": url]
        )
        #expect(ndjson.status == 0, "\(ndjson.stderr)")
        let objects = ndjson.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.compactMap { $0["token"] as? String }.sorted() == ["fcm-token-1", "fcm-token-2"])
        #expect(objects.allSatisfy { $0["reason"] as? String == "UNREGISTERED" && $0.keys.contains("installation_id") })

        let json = try CommandRunner.run(
            ["tokens", "invalid", "--app", "com.example.shop", "--format", "json"], environment: ["DATABASE_URL": url])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((document?["tokens"] as? [Any])?.count == 2)

        let since = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-4 * 3600))
        let csv = try CommandRunner.run(
            ["tokens", "invalid", "--app", "com.example.shop", "--since", since, "--format", "csv"],
            environment: ["DATABASE_URL": url])
        let lines = csv.stdout.split(whereSeparator: \.isNewline)
        #expect(lines.first == "provider,token,invalidated_at,status,reason,unregistered_at,installation_id")
        #expect(lines.count == 2 && lines[1].hasPrefix("fcm,fcm-token-2,"))

        let table = try CommandRunner.run(
            ["tokens", "invalid", "--app", "com.example.other"], environment: ["DATABASE_URL": url])
        #expect(table.status == 0 && table.stdout.contains("fcm-token-4") && !table.stdout.contains("fcm-token-1"))
        #expect(table.stdout.split(separator: "\n").allSatisfy { $0.count <= 120 })
    }

    @Test func helpAndMissingAppAreClear() throws {
        let help = try CommandRunner.run(["tokens", "invalid", "--help"], environment: [:])
        #expect(help.status == 0 && help.stdout.contains("--since"))
        let missing = try CommandRunner.run(["tokens", "invalid"], environment: ["DATABASE_URL": url])
        #expect(missing.status == 64)
    }
}
