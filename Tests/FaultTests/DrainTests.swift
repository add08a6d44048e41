import Foundation
import HTTPClient
import TestSupport
import Testing

/// SIGTERM while clients post: in-flight requests are answered after their commit, the
/// process exits 0, and what was acknowledged is stored. Repeated on fresh processes, since a
/// `serve` was once reported not to stop after a heavy run.
@Suite("Graceful stop under load")
struct DrainTests {
    @Test(arguments: 1...3)
    func sigtermUnderLoadDrainsAndExitsZero(round: Int) throws {
        let database = try FaultDatabase.fresh()
        let traffic = AcknowledgedTraffic(database: database, installs: 200, seed: UInt64(30 + round))
        let server = try ServeProcess(
            databaseURL: database.url,
            arguments: ["--threads", "2", "--writers", "2", "--queue", "64", "--timeout", "3"])
        // Few attempts: after the stop nothing listens, and the clients give up.
        let run = traffic.post(
            to: server.baseURL, clients: 8,
            policy: RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.1, maxRetryAfter: 0.1))
        waitUntil { traffic.requests >= traffic.batchCount / 3 || run.isFinished }
        // Uploads that stall half-way are in flight too: the drain waits for them only until
        // the idle timeout closes them.
        let stalled = try (0..<4).map { _ in
            let connection = try RawHTTPConnection(port: server.port)
            let request = RawRequest.make(
                "POST", "/v1/telemetry",
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(database.telemetryKey)")],
                body: Fixtures.telemetry(count: 3))
            connection.write(Array(request.dropLast(20)))
            return connection
        }
        server.send(SIGTERM)
        let exit = server.waitForExit()
        traffic.stop()
        // Closed by the idle timeout, or — when its head came in after the signal — refused
        // with 503 shutting_down.
        for connection in stalled {
            let ending = connection.waitForEnding()
            #expect(ending == .closed || ending == .reply(503), "\(ending)")
        }
        let summary = try run.value()
        let audit = try database.audit(summary.acknowledged)
        let log = server.logText
        #expect(exit.exited && exit.status == 0, "\(log.suffix(2_000))")
        #expect(log.contains("signal received, draining"))
        #expect(log.contains("msg=stopped"))
        #expect(!summary.acknowledged.isEmpty)
        #expect(audit.missing == 0)
        #expect(audit.twice == 0)
        FaultFigures.logger.info(
            "fault figures",
            [
                "test": "sigterm_drain", "round": round, "requests": summary.requests,
                "acknowledged_events": summary.acknowledged.count,
                "events_lost": audit.missing, "stored_twice": audit.twice,
            ])
    }
}
