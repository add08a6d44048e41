import Foundation
import TestSupport
import Testing

@Suite struct ProviderCheckCommandTests {
    let url: String

    init() throws { url = try TestDatabase.fresh(prefix: "fcmdata") }

    @Test func importsDeliveryDataIdempotentlyAndReportsItPerLosAngelesDay() throws {
        let page =
            #"{"androidDeliveryData":[{"appId":"1:123:android:abc","date":{"year":2026,"month":11,"day":30},"#
            + #""data":{"countMessagesAccepted":"12000","messageOutcomePercents":{"delivered":95.1,"#
            + #""droppedAppForceStopped":2.5}}}],"nextPageToken":"n"}"#
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID()).json")
        try page.write(to: file, atomically: true, encoding: .utf8)
        let env = ["DATABASE_URL": url]
        for _ in 0..<2 {
            let result = try CommandRunner.run(
                [
                    "import", "fcm-delivery-data", file.path, "--app", "com.example.shop", "--fcm-app-id",
                    "1:123:android:abc",
                ], environment: env)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout
                    == "imported 1 FCM delivery entries for 1 days (2026-11-30 to 2026-11-30, America/Los_Angeles)\n")
        }
        let wrong = try CommandRunner.run(
            ["import", "fcm-delivery-data", file.path, "--app", "com.example.shop", "--fcm-app-id", "1:9:android:zzz"],
            environment: env)
        #expect(wrong.status == 65 && wrong.stderr.contains("not --fcm-app-id 1:9:android:zzz; nothing imported"))

        let report = try CommandRunner.run(
            [
                "report", "provider-check", "--app", "com.example.shop", "--from", "2026-11-29", "--to", "2026-12-01",
                "--format", "json",
            ],
            environment: env)
        #expect(report.status == 0, "\(report.stderr)")
        let rows =
            (try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])?["rows"]
            as? [[String: Any]]
        #expect(rows?.count == 1)
        #expect(rows?.first?["day"] as? String == "2026-11-30")
        #expect(rows?.first?["delivered_pct"] as? Double == 95.1)
        #expect(rows?.first?["confirmed_delivery_rate"] is NSNull && rows?.first?["gap_pp"] is NSNull)

        let table = try CommandRunner.run(
            ["report", "provider-check", "--app", "com.example.shop", "--week", "2026-W48"], environment: env)
        #expect(table.status == 0 && table.stdout.contains("2026-11-30"), "\(table.stdout)\(table.stderr)")
        #expect(table.stdout.split(separator: "\n").allSatisfy { $0.count <= 120 })
    }
}
