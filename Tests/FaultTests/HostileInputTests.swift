import Foundation
import HTTPClient
import PushLedgerContract
import TestSupport
import Testing

/// More than 10,000 generated hostile requests (HostileCorpus) and slow clients, with valid
/// traffic posted at the same time. Every hostile answer is a 4xx (or a 200 that accepted none
/// of the events), never a 5xx or a dropped connection; slow clients are closed by the server;
/// memory stays bounded; the valid traffic is stored exactly once and nothing else is.
@Suite("Hostile input")
struct HostileInputTests {
    /// A resource bound, generous for a server whose limits are 1 MiB bodies and 8 MiB after gzip.
    static let memoryBound = 256 << 20

    @Test func hostileRequestsAreRefusedWhileValidTrafficIsStored() throws {
        let database = try FaultDatabase.fresh()
        let otherAppKey = try FaultDatabase.createKey(app: FaultDatabase.otherApp, scope: "telemetry", database.url)
        let revokedKey = try FaultDatabase.createKey(app: FaultDatabase.app, scope: "telemetry", database.url)
        try database.revokeKey(revokedKey)
        let server = try ServeProcess(
            databaseURL: database.url, arguments: ["--timeout", "2", "--upload-deadline", "4"])

        let corpus = HostileCorpus(
            telemetryKey: database.telemetryKey, sendsKey: database.sendsKey, otherAppKey: otherAppKey,
            revokedKey: revokedKey,
            limits: (maxBody: IngestLimits().maxBodyBytes, maxEvents: IngestLimits().maxEventsPerRequest))
        let requests = corpus.all()
        let slow = corpus.slowClients(30)

        let traffic = AcknowledgedTraffic(database: database, installs: 120, seed: 41)
        let valid = traffic.post(
            to: server.baseURL, clients: 2,
            policy: RetryPolicy(maxAttempts: 10_000, baseDelay: 0.05, maxDelay: 0.5, maxRetryAfter: 0.5))
        let slowRun = HostileRun.run(slow, port: server.port, threads: slow.count)
        let hostileRun = HostileRun.run(requests, port: server.port, threads: 6)
        var tally = try hostileRun.value()
        tally.merge(try slowRun.value())
        let summary = try valid.value()
        let memory = try #require(server.memory())

        #expect(tally.tried >= 10_000)
        #expect(tally.serverErrors == 0, "\(tally.statusSummary)")
        #expect(tally.dropped == 0)
        #expect(tally.violations == 0, "\(tally.variantSummary)\n\(tally.examples.joined(separator: "\n"))")
        #expect(tally.slowClosed == slow.count)
        #expect(memory.peak < Self.memoryBound, "peak RSS \(memory.peak >> 20) MiB")
        #expect(server.isRunning)
        // No write failed (a refused request's body is kept in failed_events, never dropped).
        #expect(
            !server.logText.contains("level=error"),
            "\(server.logText.split(separator: "\n").filter { $0.contains("level=error") }.prefix(3))")
        #expect(DatabaseOutageTests.status(server, "/healthz") == 200)

        let audit = try database.audit(summary.acknowledged)
        #expect(summary.gaveUp == 0)
        #expect(audit.missing == 0)
        #expect(audit.twice == 0)
        // Refused bodies are kept in failed_events, a raw NUL byte too (as U+FFFD).
        let rawNUL = requests.filter { $0.variant == "raw_nul" }.count
        #expect(rawNUL > 0)
        #expect(
            try database.count(
                "select count(*)::int8 from failed_events where raw_json = \("{\"app_id\":\"raw\u{FFFD}nul\"}")")
                == rawNUL)
        // No hostile request got an event in: what is stored is exactly the valid traffic.
        #expect(try database.storedEventIDs() == summary.acknowledged)
        FaultFigures.logger.info(
            "fault figures",
            [
                "test": "hostile_input", "requests": tally.tried, "slow_clients": slow.count,
                "statuses": tally.statusSummary,
                "status_5xx": tally.serverErrors, "dropped": tally.dropped, "not_http_closed": tally.notHTTPClosed,
                "violations": tally.violations,
                "valid_requests": summary.requests, "valid_events": summary.acknowledged.count,
                "events_lost": audit.missing,
                "peak_rss_mib": memory.peak >> 20, "rss_mib": memory.rss >> 20,
            ])
    }

    /// Values that pass the HTTP checks but that storage cannot hold, put in every field of the
    /// contract's requests (HostileCorpus.storage), posted by another app while valid traffic
    /// shares the writers' batches: no 5xx, the valid traffic stored exactly once, every
    /// failed-event row bounded and named by the installation it came from.
    @Test func valuesStorageCannotHoldAreRefusedWhileOtherAppsAreStored() throws {
        let database = try FaultDatabase.fresh()
        let otherAppKey = try FaultDatabase.createKey(app: FaultDatabase.otherApp, scope: "telemetry", database.url)
        let otherAppSendsKey = try FaultDatabase.createKey(app: FaultDatabase.otherApp, scope: "sends", database.url)
        let server = try ServeProcess(databaseURL: database.url, arguments: ["--timeout", "5"])
        let corpus = HostileCorpus(
            telemetryKey: database.telemetryKey, sendsKey: database.sendsKey, otherAppKey: otherAppKey, revokedKey: "",
            limits: (maxBody: IngestLimits().maxBodyBytes, maxEvents: IngestLimits().maxEventsPerRequest),
            otherAppSendsKey: otherAppSendsKey)
        let requests = try corpus.storage()

        let traffic = AcknowledgedTraffic(database: database, installs: 60, seed: 43)
        let valid = traffic.post(
            to: server.baseURL, clients: 2,
            policy: RetryPolicy(maxAttempts: 10_000, baseDelay: 0.05, maxDelay: 0.5, maxRetryAfter: 0.5))
        let tally = try HostileRun.run(requests, port: server.port, threads: 6).value()
        let summary = try valid.value()

        #expect(tally.tried >= 2_000)
        #expect(tally.serverErrors == 0, "\(tally.statusSummary)\n\(tally.examples.joined(separator: "\n"))")
        #expect(tally.dropped == 0)
        #expect(tally.violations == 0, "\(tally.variantSummary)\n\(tally.examples.joined(separator: "\n"))")
        #expect(
            !server.logText.contains("level=error"),
            "\(server.logText.split(separator: "\n").filter { $0.contains("level=error") }.prefix(3))")
        let audit = try database.audit(summary.acknowledged)
        #expect(summary.gaveUp == 0)
        #expect(audit.missing == 0)
        #expect(audit.twice == 0)
        #expect(try database.storedEventIDs() == summary.acknowledged)
        // Refusals and rejections of the other app were stored, bounded, and none of the first app.
        let failed = try database.count(
            "select count(*)::int8 from failed_events where app_id = \(FaultDatabase.otherApp)")
        #expect(failed > 0)
        #expect(
            try database.count("select count(*)::int8 from failed_events where app_id <> \(FaultDatabase.otherApp)")
                == 0)
        #expect(
            try database.count("select coalesce(max(octet_length(raw_json)), 0)::int8 from failed_events")
                <= FailedText.maxStoredBytes)
        #expect(
            try database.count("select count(*)::int8 from failed_events where raw_sha256 is null or raw_bytes is null")
                == 0)
        // A rejected telemetry event is stored with its envelope's installation (what erasure removes by).
        #expect(
            try database.count(
                """
                select count(*)::int8 from failed_events where endpoint = '/v1/telemetry' and event_index is not \
                null and installation_id is null
                """
            ) == 0)
        FaultFigures.logger.info(
            "fault figures",
            [
                "test": "hostile_storage", "requests": tally.tried, "statuses": tally.statusSummary,
                "status_5xx": tally.serverErrors,
                "valid_requests": summary.requests, "valid_events": summary.acknowledged.count,
                "events_lost": audit.missing,
                "failed_events": failed,
            ])
    }
}
