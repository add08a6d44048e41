import Foundation
import Postgres
import TestSupport
import Testing

@testable import IngestServer

/// A key's rate limit through the running server: set in `api_keys`, picked up by the key
/// reload, answered 429 `rate_limited` with Retry-After, counted per app; nothing refused is stored.
@Suite("Key rate limits")
struct RateLimitTests {
    @Test func aKeyPastItsRateGets429WithRetryAfterAndNothingStored() throws {
        let harness = try Harness()
        try Connection.connect(url: harness.databaseURL).execute(
            """
            update api_keys set rate_per_second = 1, rate_burst = 30 where app_id = \(Fixtures.app) and scope = \
            'sends'
            """
        )
        harness.server.refreshKeys()
        let first = try harness.sends(Fixtures.sends((0..<20).map { _ in Fixtures.send() }))
        #expect(first.status == 200)
        let second = try harness.sends(Fixtures.sends((0..<20).map { _ in Fixtures.send() }))
        #expect(second.status == 429)
        #expect(second.json?["error"] as? String == "rate_limited")
        // 10 tokens left, 20 needed: 10 more at 1 a second.
        #expect(second.header("Retry-After") == "10")
        // The app's other key has no limit of its own.
        #expect(try harness.telemetry(Fixtures.telemetry(count: 5)).status == 200)
        #expect(try harness.count("select count(*)::int8 from sends") == 20)
        let metrics = try harness.get("/metrics").text
        #expect(metrics.contains("pushledger_http_throttled_total{app=\"\(Fixtures.app)\",reason=\"rate_limit\"} 1"))
    }
}
