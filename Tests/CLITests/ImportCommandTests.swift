import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct ImportCommandTests {
    let url: String

    init() throws { url = try TestDatabase.fresh(prefix: "import") }

    private func send(
        _ i: Int, app: String = "com.example.shop", sentAt: Date = Date().addingTimeInterval(-3600)
    ) -> String {
        let stamp = ISO8601DateFormatter().string(from: sentAt)
        let token = String(repeating: String(format: "%02x", i % 256), count: 32)
        return
            #"{"event_id":"\#(uuid(i, 1))","notification_id":"\#(uuid(i, 2))","app_id":"\#(app)","provider":"apns","#
            + #""token":"\#(token)","channel":"orders","sent_at":"\#(stamp)","status":200}"#
    }

    private func uuid(_ i: Int, _ kind: Int) -> String {
        String(format: "%08x-0000-4000-8000-%012x", kind, i)
    }

    @Test func importsValidLinesRejectsBadOnesAndDeduplicatesReimports() throws {
        var lines = (0..<5000).map { send($0) }
        lines[10] = "{not json"
        lines[20] = send(20, app: "com.other.app")
        lines[30] = send(30, sentAt: Date().addingTimeInterval(-40 * 86_400))
        lines.insert("", at: 40)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sends-\(UUID()).ndjson")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)

        let first = try CommandRunner.run(
            ["import", "sends", file.path, "--app", "com.example.shop", "--chunk", "700"],
            environment: ["DATABASE_URL": url])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout
                == """
                imported 5000 sends: 4997 stored, 0 duplicates, 3 rejected (app_mismatch 1, invalid_field 1, \
                too_old 1)\n
                """
        )
        #expect(first.stderr.contains("line=11 error=invalid_field"))

        let connection = try Connection.connect(url: url)
        #expect(try connection.query("select count(*) as c from sends")[0].decode("c", as: Int.self) == 4997)
        #expect(try connection.query("select count(*) as c from failed_events")[0].decode("c", as: Int.self) == 3)

        // The same file again, from stdin and with the age limit lifted: all duplicates, the old line now stored.
        let again = try CommandRunner.run(
            ["import", "sends", "-", "--app", "com.example.shop", "--allow-old"], environment: ["DATABASE_URL": url],
            input: try Data(contentsOf: file))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stdout
                == "imported 5000 sends: 1 stored, 4997 duplicates, 2 rejected (app_mismatch 1, invalid_field 1)\n")
        #expect(try connection.query("select count(*) as c from sends")[0].decode("c", as: Int.self) == 4998)
    }

    @Test func missingFileAndBadChunkAreClearErrors() throws {
        let missing = try CommandRunner.run(
            ["import", "sends", "/no/such.ndjson", "--app", "a"], environment: ["DATABASE_URL": url])
        #expect(missing.status == 1)
        #expect(missing.stderr == "pushledger: cannot open /no/such.ndjson\n")
        let chunk = try CommandRunner.run(
            ["import", "sends", "-", "--app", "a", "--chunk", "0"], environment: ["DATABASE_URL": url])
        #expect(chunk.status == 64)
    }

    @Test func importDerivesReasonsFromResponseBodiesAndNormalizesAdminSDKCodes() throws {
        let stamp = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-3600))
        func line(_ i: Int, provider: String, status: Int, extra: String) -> String {
            let token = provider == "apns" ? String(repeating: String(format: "%02x", i), count: 32) : "fcm-\(i)"
            return
                #"{"event_id":"\#(uuid(i, 1))","notification_id":"\#(uuid(i, 2))","app_id":"com.example.shop","#
                + #""provider":"\#(provider)","token":"\#(token)","channel":"orders","sent_at":"\#(stamp)","#
                + #""status":\#(status),\#(extra)}"#
        }
        let apnsBody = #"{\"reason\":\"Unregistered\",\"timestamp\":1764500000000}"#
        let fcmBody =
            #"{\"error\":{\"status\":\"NOT_FOUND\","#
            + #"\"details\":[{\"@type\":\"type.googleapis.com/google.firebase.fcm.v1.FcmError\","#
            + #"\"errorCode\":\"UNREGISTERED\"}]}}"#
        let lines = [
            line(1, provider: "apns", status: 410, extra: #""response_body":"\#(apnsBody)""#),
            line(2, provider: "fcm", status: 404, extra: #""response_body":"\#(fcmBody)""#),
            line(3, provider: "fcm", status: 500, extra: #""response_body":"upstream connect error""#),
            line(4, provider: "fcm", status: 429, extra: #""reason":"messaging/device-message-rate-exceeded""#),
            line(5, provider: "apns", status: 410, extra: #""reason":"ExpiredToken","response_body":"\#(apnsBody)""#),
        ]
        let result = try CommandRunner.run(
            ["import", "sends", "-", "--app", "com.example.shop"], environment: ["DATABASE_URL": url],
            input: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try Connection.connect(url: url).query(
            """
            select reason, extract(epoch from unregistered_at)::int8 as unregistered, response_body is not null as kept
              from sends order by event_id
            """)
        let stored = try rows.map { row in
            """
            \(try row.decode("reason", as: String?.self) ?? "-") \
            \(try row.decode("unregistered", as: Int?.self).map(String.init) ?? "-") \
            \(try row.decode("kept", as: Bool.self))
            """
        }
        #expect(
            stored == [
                "Unregistered 1764500000 true", "UNREGISTERED - true", "- - true", "QUOTA_EXCEEDED - false",
                "ExpiredToken 1764500000 true",
            ])
    }
}
