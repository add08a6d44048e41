import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `make demo` in small: the real binaries as scripts/demo.sh runs them (migrate, serve as a
/// child process, keys, simulate a mature fleet after a warm-up, rollup, the weekly report as
/// JSON and HTML, SIGTERM), with the silent-loss report held against the simulator's `--truth` file.
@Suite struct DemoTests {
    @Test func reducedDemoMatchesTheTruthFile() throws {
        let database = try TestDatabase.empty(prefix: "demo")
        let env = ["DATABASE_URL": database, "PUSHLEDGER_APP": "com.example.shop"]
        let migrate = try CommandRunner.run(["migrate", "--log-level", "warning"], environment: env)
        try #require(migrate.status == 0, "\(migrate.stderr)")

        let serve = try ServeProcess(databaseURL: database)
        let port = serve.port

        var keys: [String] = []
        for scope in ["telemetry", "sends"] {
            let key = try CommandRunner.run(["keys", "create", "--app", "com.example.shop", "--scope", scope, "--log-level", "warning"], environment: env)
            try #require(key.status == 0, "\(key.stderr)")
            keys.append(key.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let truthFile = FileManager.default.temporaryDirectory.appendingPathComponent("demo-truth-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: truthFile) }
        let simulate = try CommandRunner.run(
            ["simulate", "--url", "http://127.0.0.1:\(port)", "--telemetry-key", keys[0], "--sends-key", keys[1],
             "--installs", "300", "--warmup-days", "11", "--days", "8", "--seed", "7", "--no-progress", "--truth", truthFile.path], environment: env)
        try #require(simulate.status == 0, "\(simulate.stderr)")

        // A graceful stop: in-flight requests finish, then exit 0.
        serve.send(SIGTERM)
        let exit = serve.waitForExit()
        // SIGTERM drains and exits 0 (tested on a real process: signalling the test process
        // itself would interrupt every other test running in parallel).
        #expect(exit.exited && exit.status == 0, "\(serve.logText)")
        #expect(serve.logText.contains("signal received, draining"))
        #expect(serve.logText.contains("msg=stopped"))

        let rollup = try CommandRunner.run(["rollup"], environment: env)
        #expect(rollup.status == 0, "\(rollup.stderr)")
        let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: truthFile)) as? [String: Any])
        let from = try #require(truth["from"] as? String), to = try #require(truth["to"] as? String)
        let asOf = try #require(truth["as_of"] as? String)

        let weekly = try CommandRunner.run(["report", "weekly", "--format", "json"], environment: env)
        #expect(weekly.status == 0, "\(weekly.stderr)")
        #expect(try JSONSerialization.jsonObject(with: Data(weekly.stdout.utf8)) is [String: Any])
        let html = try CommandRunner.run(["report", "weekly", "--format", "html"], environment: env)
        #expect(html.status == 0, "\(html.stderr)")
        #expect(html.stdout.hasPrefix("<!DOCTYPE html>") && html.stdout.contains("<svg"), "the HTML report with its charts")

        let report = try CommandRunner.run(
            ["report", "silent-loss", "--by", "channel", "--format", "json", "--from", from, "--to", to, "--as-of", asOf], environment: env)
        try #require(report.status == 0, "\(report.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])

        // The truth's (channel, platform, outcome) counts summed per channel equal the report's.
        var expected: [String: [String: Int]] = [:]
        for row in try #require(truth["outcomes"] as? [[String: Any]]) {
            let channel = try #require(row["channel"] as? String), outcome = try #require(row["outcome"] as? String)
            expected[channel, default: [:]][outcome, default: 0] += try #require(row["count"] as? Int)
            expected[channel, default: [:]]["sends", default: 0] += try #require(row["count"] as? Int)
        }
        var actual: [String: [String: Int]] = [:]
        for row in rows {
            let channel = try #require(row["channel"] as? String)
            for (field, value) in row {
                guard let count = value as? Int, Self.countFields.contains(field), count > 0 else { continue }
                actual[channel, default: [:]][field] = count
            }
        }
        #expect(!expected.isEmpty)
        #expect(actual == expected.mapValues { $0.filter { $0.value > 0 } })
    }

    static let countFields: Set<String> = [
        "sends", "rejected", "pending", "opened", "received", "blocked_app", "blocked_channel", "unconfirmed", "unattributed",
    ]
}
