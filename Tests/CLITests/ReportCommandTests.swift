import Foundation
import TestSupport
import Testing

@Suite struct ReportCommandTests {
    let env: [String: String]

    init() throws {
        env = ["DATABASE_URL": try TestDatabase.fresh(prefix: "reportcli"), "PUSHLEDGER_APP": "com.example.shop"]
    }

    @Test func emptyWindowIsAnEmptyReportInEveryFormat() throws {
        let json = try CommandRunner.run(
            ["report", "silent-loss", "--week", "2026-W48", "--format", "json", "--by", "channel"], environment: env)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(
            object["from"] as? String == "2026-11-23T00:00:00.000Z"
                || (object["from"] as? String)?.hasPrefix("2026-11-23T00:00:00") == true)
        #expect((object["rows"] as? [Any])?.isEmpty == true)
        for format in ["table", "csv", "markdown"] {
            #expect(try CommandRunner.run(["report", "silent-loss", "--format", format], environment: env).status == 0)
        }
        for sub in ["prompt-timing", "rejections"] {
            let result = try CommandRunner.run(
                ["report", sub, "--from", "2026-11-01", "--to", "2026-11-08", "--format", "json"], environment: env)
            #expect(result.status == 0, "\(sub): \(result.stderr)")
            #expect(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) is [String: Any])
        }
    }

    @Test func weeklyRollupAndQueryRun() throws {
        let weekly = try CommandRunner.run(["report", "weekly", "--week", "2026-W47"], environment: env)
        #expect(weekly.status == 0, "\(weekly.stderr)")
        #expect(weekly.stdout.contains("Headline"))
        let html = try CommandRunner.run(["report", "weekly", "--format", "html"], environment: env)
        #expect(html.stdout.hasPrefix("<!DOCTYPE html>"))
        #expect(try CommandRunner.run(["rollup", "--format", "json"], environment: env).status == 0)
        // --full rebuilds (an empty database: nothing to judge); the next refresh is incremental.
        let full = try CommandRunner.run(["rollup", "--full", "--format", "json"], environment: env)
        #expect(full.status == 0, "\(full.stderr)")
        let rebuilt = try #require(try JSONSerialization.jsonObject(with: Data(full.stdout.utf8)) as? [String: Any])
        #expect(rebuilt["full"] as? Bool == true && rebuilt["reclassified_sends"] as? Int == 0)
        let next = try CommandRunner.run(["rollup", "--format", "json"], environment: env)
        let refreshed = try #require(try JSONSerialization.jsonObject(with: Data(next.stdout.utf8)) as? [String: Any])
        #expect(refreshed["full"] as? Bool == false && refreshed["reclassified_sends"] as? Int == 0)
        let help = try CommandRunner.run(["rollup", "--help"], environment: env)
        #expect(help.stdout.contains("--full"))
        let quick = try CommandRunner.run(["query", "silent-loss", "--since", "24h"], environment: env)
        #expect(quick.status == 0, "\(quick.stderr)")
    }

    /// As a read-only login in role pushledger_reader (every transaction read-only), the
    /// reports run after `pushledger rollup` and name their source and freshness.
    @Test func reportsRunAsAReadOnlyReader() throws {
        var reader = env
        reader["DATABASE_URL"] = try TestDatabase.readOnlyReaderURL(for: try #require(env["DATABASE_URL"]))
        // Before any refresh the reports say so, and silent loss falls back to the engine.
        let never = try CommandRunner.run(
            ["report", "weekly", "--week", "2026-W47", "--format", "text"], environment: reader)
        #expect(never.status == 0, "\(never.stderr)")
        #expect(never.stdout.contains("rollups never refreshed: run `pushledger rollup`"))
        for source in ["auto", "rollups", "engine"] {
            let result = try CommandRunner.run(
                ["report", "silent-loss", "--week", "2026-W47", "--source", source], environment: reader)
            #expect(result.status == (source == "rollups" ? 64 : 0), "\(source): \(result.stderr)")
            #expect(
                (result.stdout + result.stderr).contains(
                    source == "engine" ? "answered by the outcome engine" : "rollups never refreshed"))
        }
        let quick = try CommandRunner.run(["query", "silent-loss", "--since", "7d"], environment: reader)
        #expect(quick.status == 0 && quick.stdout.contains("answered by the outcome engine"), "\(quick.stderr)")
        // After `pushledger rollup` (of no data: it still records its refresh) they read the rollups.
        #expect(try CommandRunner.run(["rollup"], environment: env).status == 0)
        let weekly = try CommandRunner.run(
            ["report", "weekly", "--week", "2026-W47", "--format", "text"], environment: reader)
        #expect(weekly.status == 0 && weekly.stdout.contains("rollups as of "), "\(weekly.stderr)")
        let fromRollups = try CommandRunner.run(
            ["report", "silent-loss", "--week", "2026-W47", "--source", "rollups"], environment: reader)
        #expect(
            fromRollups.status == 0 && fromRollups.stdout.contains("answered from the rollups as of "),
            "\(fromRollups.stderr)")
        let help = try CommandRunner.run(["report", "weekly", "--help"], environment: env)
        #expect(help.stdout.contains("`pushledger rollup --follow` does, kept running as a service"))
    }

    @Test(arguments: [
        ["report", "silent-loss", "--by", "colour"],
        ["report", "silent-loss", "--week", "2026-W48", "--from", "2026-11-01"],
        ["report", "silent-loss", "--from", "2026-11-08", "--to", "2026-11-01"],
        ["report", "weekly", "--week", "2026-W60"],
        ["report", "weekly", "--format", "csv"],
        ["query", "silent-loss", "--since", "forever"],
        ["report", "silent-loss", "--source", "rollups", "--as-of", "2026-11-20"],
        ["report", "silent-loss", "--source", "cache"],
    ])
    func badArgumentsExit64(arguments: [String]) throws {
        let result = try CommandRunner.run(arguments, environment: env)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }

    @Test func appIsRequired() throws {
        var noApp = env
        noApp["PUSHLEDGER_APP"] = nil
        #expect(try CommandRunner.run(["report", "silent-loss"], environment: noApp).status == 64)
    }
}
