import Foundation
import TestSupport
import Testing

@testable import IngestServer

/// Real outages: the server's connections to Postgres go through a relay the test cuts.
@Suite("Postgres outages")
struct OutageTests {
    static func proxy() throws -> TCPProxy {
        try TCPProxy(targetPort: UInt16(URLComponents(string: TestDatabase.adminURL)!.port!))
    }

    @Test func outageIs503WithNothingCommittedAndTheReconnectLoopRecovers() throws {
        let proxy = try Self.proxy()
        let harness = try Harness(proxy: proxy) { config in config.reconnectInterval = 0.05 }
        #expect(try harness.telemetry(Fixtures.telemetry(count: 2)).accepted == 2)

        proxy.cut()
        let during = try harness.telemetry(Fixtures.telemetry(count: 5))
        #expect(during.status == 503)
        #expect(during.header("Retry-After") == "5")
        #expect(try harness.get("/readyz").status == 503)
        #expect(try harness.storedCount == 2)
        #expect(try harness.get("/metrics").text.contains("pushledger_database_errors_total{sqlstate=\"connection\"}"))

        proxy.restore()
        // The maintenance loop probes every 50 ms; no request and no restart brings it back.
        waitUntil { (try? harness.get("/readyz").status) == 200 }
        #expect(try harness.telemetry(Fixtures.telemetry(count: 3)).accepted == 3)
        #expect(try harness.storedCount == 5)
    }

    @Test func connectionLostDuringABatchIs503ForEveryRequestInIt() throws {
        let proxy = try Self.proxy()
        let harness = try Harness(proxy: proxy) { config in config.writerCount = 1 }
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 200)
        let held = harness.holdWriter(events: 3)
        let queued = (0..<3).map { _ in Background { try harness.telemetry(Fixtures.telemetry(count: 2)) } }
        waitUntil { harness.server.queueDepth == 3 }
        proxy.cut()
        harness.store.openGate()
        #expect(try held.value().status == 503)
        for request in queued { #expect(try request.value().status == 503) }
        #expect(try harness.storedCount == 1)
    }
}
