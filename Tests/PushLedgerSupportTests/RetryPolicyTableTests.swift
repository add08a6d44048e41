import Foundation
import PushLedgerSupport
import Testing

/// The retry rule's shared table (Tests/Fixtures/retry-delays.json): the Android SDK's core runs
/// the same rows, so the two client SDKs back off alike.
@Suite("Retry delays")
struct RetryPolicyTableTests {
    @Test func everyRowOfTheSharedTableGetsItsDelay() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/retry-delays.json")
        let table = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let p = try #require(table["policy"] as? [String: Double])
        let policy = RetryPolicy(
            maxAttempts: 4, baseDelay: try #require(p["base_delay_s"]), maxDelay: try #require(p["max_delay_s"]),
            maxRetryAfter: try #require(p["max_retry_after_s"]))
        let rows = try #require(table["rows"] as? [[String: Any]])
        #expect(rows.count >= 10)
        for row in rows {
            let delay = policy.delay(
                afterAttempt: try #require(row["attempt"] as? Int), retryAfter: row["retry_after"] as? String,
                random: try #require(row["random"] as? Double))
            #expect(abs(delay - (try #require(row["delay_s"] as? Double))) < 1e-9, "\(row)")
        }
    }
}
