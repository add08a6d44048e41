import Foundation
import Gzip
import HTTPClient
import TestSupport
import Testing

@testable import Simulator

/// The runner against a loopback stand-in for the ingest server that de-duplicates by
/// event_id and answers like the contract.
@Suite("SimulationRunner posts the fleet")
struct RunnerTests {
    final class Ledger: @unchecked Sendable {
        let lock = NSLock()
        var ids = Set<String>()
        var correctedSecondsOK = true
        var correctedInRange = true
    }

    @Test func postsEverythingOnceWithTelemetryFirst() throws {
        let nowMs = Int64(Date().timeIntervalSince1970 * 1_000)
        var config = SimulationConfig.endingBefore(nowMs: nowMs, days: 3)
        config.installs = 60
        config.duplicateBatchShare = 0.2
        let ledger = Ledger()
        let (start, end) = (config.startMs, config.endMs)
        let server = try LoopbackServer { request, _ in
            let receivedAt = Int64(Date().timeIntervalSince1970 * 1_000)
            guard request.headers["authorization"] == (request.path == "/v1/sends" ? "Bearer s" : "Bearer t"),
                let raw = try? Gzip.decompress(request.body, limit: 1 << 24)
            else { return .status(401) }
            var events: [[String: Any]] = []
            var sentAt: Int64?
            if request.path == "/v1/telemetry", let body = try? Fixtures.object(raw) {
                events = body["events"] as? [[String: Any]] ?? []
                sentAt = try? Fixtures.ms(body["sent_at"])
            } else if request.path == "/v1/sends" {
                let batch = SendsBatch(
                    body: raw, contentType: request.headers["content-type"] ?? "", eventCount: 0, isRetry: false)
                events = (try? Fixtures.sends(batch)) ?? []
            }
            var accepted = 0
            ledger.lock.withLock {
                for event in events {
                    if let sentAt, let at = try? Fixtures.ms(event["at"]) {
                        // skew correction as the server does it lands on the simulated grid
                        let corrected = receivedAt - (sentAt - at)
                        if corrected < start || corrected >= end + 60_000 { ledger.correctedInRange = false }
                        let second = (corrected % 60_000 + 60_000) % 60_000
                        // telemetry sits at seconds 5–25 before the delay; a receipt that came
                        // within seconds of its send keeps its time (41–53), before second 58
                        // where expiries sit
                        let last: Int64 = event["type"] as? String == "notification_received" ? 58_000 : 40_000
                        if second < 5_000 || second >= last { ledger.correctedSecondsOK = false }
                    }
                    if ledger.ids.insert(event["event_id"] as? String ?? "").inserted { accepted += 1 }
                }
            }
            return .status(200, "{\"accepted\":\(accepted),\"duplicates\":\(events.count - accepted),\"rejected\":[]}")
        }
        defer { server.stop() }
        var options = SimulationRunner.Options(baseURL: server.url, telemetryKey: "t", sendsKey: "s")
        options.progress = false
        options.threads = 3
        let (summary, truth) = try SimulationRunner.run(config, options: options)
        #expect(summary.accepted == truth.telemetryEvents + truth.sends)
        #expect(summary.duplicates == truth.duplicateEventsPosted && truth.duplicateEventsPosted > 0)
        #expect(summary.rejected == 0)
        #expect(ledger.correctedSecondsOK && ledger.correctedInRange)
        let paths = server.seen.map(\.path)
        let firstSend = try #require(paths.firstIndex(of: "/v1/sends"))
        #expect(!paths[firstSend...].contains("/v1/telemetry"))
        #expect(summary.requests == paths.count)
    }

    @Test func aRefusedBatchFailsTheRun() throws {
        let server = try LoopbackServer { _, _ in .status(403, "{\"error\":\"forbidden\",\"message\":\"wrong scope\"}")
        }
        defer { server.stop() }
        var config = Fixtures.config(installs: 200)
        config.days = 2
        var options = SimulationRunner.Options(baseURL: server.url, telemetryKey: "t", sendsKey: "s")
        options.progress = false
        let error = try #require(throws: SimulationError.self) { try SimulationRunner.run(config, options: options) }
        #expect(error.description == "ingest refused a batch on /v1/telemetry (HTTP 403)")
        #expect(error.detail.contains("wrong scope"))
        // the run stops: no thread posts after the first refusal it sees
        #expect(server.seen.count <= options.threads)
    }
}

@Suite("simulate command options")
struct SimulateCommandTests {
    let now: Int64 = 20_500 * 86_400_000 + 3_600_000  // 01:00 UTC

    @Test func defaultsEndAtTodaysMidnight() throws {
        let command = try SimulateCommand(arguments: ["--dry-run"], nowMs: now)
        #expect(command.config.endMs == 20_500 * 86_400_000)
        #expect(command.config.days == 14 && command.config.installs == 20_000)
        #expect(command.dryRun)
    }

    @Test func parsesEveryOption() throws {
        let command = try SimulateCommand(
            arguments: [
                "--url", "http://h:1", "--telemetry-key", "t", "--sends-key", "s", "--installs", "50", "--days", "7",
                "--seed", "9", "--threads", "2", "--flush-days", "2", "--inject", "receipts-outage@3", "--inject",
                "channel-block-spike", "--truth", "/tmp/t.json", "--no-gzip", "--no-progress",
            ],
            nowMs: now)
        #expect(command.options.baseURL == "http://h:1" && command.options.threads == 2 && !command.options.gzip)
        #expect(
            command.config.installs == 50 && command.config.days == 7 && command.config.seed == 9
                && command.config.flushDays == 2)
        #expect(
            command.config.injections == [
                .receiptsOutage(day: 3, appVersion: "5.2.0"), .channelBlockSpike(day: 3, share: 0.5),
            ])
        #expect(command.truthPath == "/tmp/t.json")
    }

    @Test func keysComeFromTheEnvironment() throws {
        let command = try SimulateCommand(
            arguments: [], nowMs: now, environment: ["PUSHLEDGER_TELEMETRY_KEY": "a", "PUSHLEDGER_SENDS_KEY": "b"])
        #expect(command.options.telemetryKey == "a" && command.options.sendsKey == "b")
    }

    @Test func startDateMustKeepTheFortnightPostable() throws {
        let command = try SimulateCommand(
            arguments: ["--dry-run", "--start", "2026-02-01", "--days", "3"],
            nowMs: SimulateCommand.parseDayForTests("2026-02-10"))
        #expect(SimTime.rfc3339(command.config.startMs) == "2026-02-01T00:00:00.000Z")
        #expect(throws: SimulationError.self) {
            try SimulateCommand(
                arguments: ["--dry-run", "--start", "2025-12-01"], nowMs: SimulateCommand.parseDayForTests("2026-02-10")
            )
        }
    }

    @Test func warmupDaysMakeASteadyFleetThatStaysPostable() throws {
        let command = try SimulateCommand(arguments: ["--dry-run", "--days", "14", "--warmup-days", "14"], nowMs: now)
        #expect(command.config.warmupDays == 14 && command.config.existingUserShare == 0.85)
        #expect(command.config.endMs == 20_500 * 86_400_000)
        #expect(command.config.simulatedStartMs == command.config.startMs - 14 * SimTime.msPerDay)
        // --start counts the reported days; the warm-up before them must stay within 29 days too
        let early = SimulateCommand.parseDayForTests("2026-02-10")
        #expect(
            try SimulateCommand(
                arguments: ["--dry-run", "--start", "2026-01-25", "--days", "3", "--warmup-days", "12"], nowMs: early
            )
            .config.simulatedStartMs == SimulateCommand.parseDayForTests("2026-01-13"))
        #expect(throws: SimulationError.self) {
            try SimulateCommand(
                arguments: ["--dry-run", "--start", "2026-01-25", "--days", "3", "--warmup-days", "20"], nowMs: early)
        }
    }

    @Test(arguments: [
        ["--installs"], ["--installs", "0"], ["--days", "40"], ["--bogus"], ["--inject", "nope"],
        ["--start", "2026-13-01"],
        ["--threads", "x"], [] as [String], ["--warmup-days", "5"], ["--days", "20", "--warmup-days", "11"],
        ["--warmup-days", "-1"],
    ])
    func rejectsBadOptions(arguments: [String]) {
        #expect(throws: SimulationError.self) { try SimulateCommand(arguments: arguments, nowMs: now) }
    }
}

extension SimulateCommand {
    static func parseDayForTests(_ text: String) -> Int64 { (try? parseDay(text)) ?? 0 }
}
