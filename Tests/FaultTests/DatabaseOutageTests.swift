import Foundation
import HTTPClient
import TestSupport
import Testing

/// Postgres really stopped (its own cluster, `pg_ctl stop`) under load, then started again.
@Suite("Database outage")
struct DatabaseOutageTests {
    @Test func stoppedPostgresAnswers503ThenRecoversWithoutARestart() throws {
        let cluster = try LocalCluster(name: "fault-outage")
        defer { cluster.destroy() }
        let database = try FaultDatabase(url: cluster.url, migrate: true)
        let server = try ServeProcess(databaseURL: database.url)
        let traffic = AcknowledgedTraffic(database: database, installs: 150, seed: 21)
        // Clients keep retrying through the outage (Retry-After capped so the test stays short).
        let run = traffic.post(
            to: server.baseURL, clients: 4,
            policy: RetryPolicy(maxAttempts: 10_000, baseDelay: 0.05, maxDelay: 0.5, maxRetryAfter: 0.5))
        waitUntil { traffic.requests >= 20 || run.isFinished }

        try cluster.stop()
        waitUntil { Self.status(server, "/readyz") == 503 }
        let probe = try Self.probe(server, database)
        #expect(probe.status == 503, "\(probe.bodyText)")
        #expect(probe.header("Retry-After") != nil)
        #expect(probe.bodyText.contains("\"error\":\"unavailable\""))
        // Several seconds down while the clients keep posting; nothing is answered 200 then.
        let answeredBefore = traffic.requests
        sleep(3)
        let metrics = Self.metrics(server)
        #expect(metrics.contains("pushledger_database_errors_total"))
        #expect(traffic.requests > answeredBefore, "clients kept being answered (503) during the outage")

        try cluster.resume()
        // The reconnect loop brings it back; the process is the same one.
        waitUntil { Self.status(server, "/readyz") == 200 }
        #expect(server.isRunning)
        let after = try Self.probe(server, database)
        #expect(after.status == 200, "\(after.bodyText)")

        let summary = try run.value()
        let audit = try database.audit(summary.acknowledged)
        #expect(summary.gaveUp == 0)
        // The clients met the outage as 503s and retried through it.
        #expect((summary.retries["HTTP 503"] ?? 0) > 0, "\(summary.retries)")
        #expect(audit.missing == 0)
        #expect(audit.twice == 0)
        FaultFigures.logger.info(
            "fault figures",
            [
                "test": "database_outage", "requests": traffic.requests,
                "acknowledged_events": summary.acknowledged.count,
                "retried_503": summary.retries["HTTP 503"] ?? 0, "events_lost": audit.missing,
                "stored_twice": audit.twice,
            ])
    }

    static func status(_ server: ServeProcess, _ path: String) -> Int? {
        guard let connection = try? RawHTTPConnection(port: server.port) else { return nil }
        connection.write(RawRequest.make("GET", path))
        return try? connection.readReply().status
    }

    static func metrics(_ server: ServeProcess) -> String {
        guard let connection = try? RawHTTPConnection(port: server.port) else { return "" }
        connection.write(RawRequest.make("GET", "/metrics"))
        return (try? connection.readReply().text) ?? ""
    }

    /// One small valid batch, without retries.
    static func probe(_ server: ServeProcess, _ database: FaultDatabase) throws -> HTTPResponse {
        let client = try HTTPClient(baseURL: server.baseURL, timeout: 60)
        return try client.post(
            path: "/v1/telemetry", body: Fixtures.telemetry(count: 1), contentType: "application/json",
            bearer: database.telemetryKey)
    }
}
