import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every table a command prints by default fits 120 columns, on a simulated fleet's data
/// (the output is a pipe here, as it is when a user pipes it); `--wide` and `--columns`
/// change what is shown, JSON/CSV keep every field.
@Suite struct TerminalWidthTests {
    static let width = 120

    private static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// Columns a terminal gives the line: one per character (the outputs hold no wide characters).
    private static func widest(_ text: String) -> Int { lines(text).map(\.count).max() ?? 0 }

    @Test func defaultTablesFitAndWideAndColumnsChooseWhatIsShown() throws {
        let fleet = try SimulatedFleet(prefix: "width", installs: 400, days: 9, seed: 11)
        defer { fleet.removeTruth() }
        fleet.serve.send(SIGTERM)
        _ = fleet.serve.waitForExit()
        let env = fleet.environment
        let window = try fleet.window()
        #expect(try CommandRunner.run(["rollup"], environment: env).status == 0)
        _ = try CommandRunner.run(["alert", "check"], environment: env)

        let commands: [[String]] = [
            ["report", "silent-loss"] + window,
            ["report", "silent-loss", "--by", "channel"] + window,
            ["report", "silent-loss", "--by", "channel,platform"] + window,
            ["report", "silent-loss", "--by", "campaign,app_version"] + window,
            ["report", "silent-loss", "--by", "day,provider"] + window,
            ["report", "silent-loss", "--by", "platform,standby_bucket"] + window,
            ["report", "silent-loss", "--by", "channel,platform"] + window
                + ["--columns", "channel,platform,superseded,device_inactive,unexplained_rate,p90_bucket"],
            ["report", "prompt-timing"] + window,
            ["report", "prompt-timing", "--as-treated"] + window,
            ["report", "rejections"] + window,
            ["report", "weekly", "--format", "text"],
            ["query", "silent-loss", "--since", "7d"],
            ["query", "silent-loss", "--since", "7d", "--by", "channel,platform"],
            ["keys", "list"],
            ["migrate", "--status"],
            ["alert", "check"],
            ["alert", "list"],
            ["rollup"],
        ]
        for command in commands {
            let result = try CommandRunner.run(command, environment: env)
            #expect(result.status == 0 || (command[0] == "alert" && result.status == 1), "\(command): \(result.stderr)")
            #expect(
                Self.lines(result.stdout).count > 2 || ["rollup", "alert"].contains(command[0]),
                "\(command) printed \(result.stdout)")
            if ProcessInfo.processInfo.environment["PUSHLEDGER_SHOW_TABLES"] != nil {
                print("$ \(command.joined(separator: " "))\n\(result.stdout)")
            }
            let over = Self.lines(result.stdout).filter { $0.count > Self.width }
            #expect(
                over.isEmpty,
                "\(command.joined(separator: " ")): \(over.count) lines over \(Self.width):\n\(result.stdout)")
        }

        // The table the issue measured: 20 columns, about 310 characters a line with --wide.
        let byChannel = ["report", "silent-loss", "--by", "channel,platform"] + window
        let wide = try CommandRunner.run(byChannel + ["--wide"], environment: env)
        #expect(wide.status == 0, "\(wide.stderr)")
        #expect(Self.widest(wide.stdout) > Self.width)
        #expect(wide.stdout.contains("token_invalid_rate") && !wide.stdout.contains("more columns"))
        let narrow = try CommandRunner.run(byChannel, environment: env)
        #expect(!narrow.stdout.contains("token_invalid_rate │") && narrow.stdout.contains("more columns"))

        let picked = try CommandRunner.run(
            byChannel + ["--columns", "channel,blocked_channel,sends"], environment: env)
        #expect(picked.status == 0, "\(picked.stderr)")
        let header = try #require(Self.lines(picked.stdout).first { $0.contains("blocked_channel") })
        #expect(header.filter { $0 == "│" }.count == 4, "three columns: \(header)")
        #expect(header.firstRange(of: "channel")!.lowerBound < header.firstRange(of: "blocked_channel")!.lowerBound)

        // The v1.2 fields: all of them with --wide, any of them with --columns, in their order.
        for field in [
            "superseded", "app_stopped", "expired", "device_inactive", "unexplained", "superseded_rate",
            "unexplained_rate",
            "latency_lt_10s", "latency_ge_24h", "late_share", "p50_bucket", "p90_bucket", "p99_bucket",
        ] {
            let narrowHeader = Self.lines(narrow.stdout).first { $0.contains("sends") } ?? ""
            #expect(wide.stdout.contains(field) && !narrowHeader.contains(field), "\(field)")
        }
        let causes = try CommandRunner.run(
            byChannel + ["--columns", "platform,unexplained_rate,device_inactive,late_share,p90_bucket"],
            environment: env)
        #expect(causes.status == 0, "\(causes.stderr)")
        let causeLines = Self.lines(causes.stdout)
        let causeHeader = try #require(causeLines.first { $0.contains("unexplained_rate") })
        #expect(causeHeader.filter { $0 == "│" }.count == 6, "five columns: \(causeHeader)")
        #expect(
            ["platform", "unexplained_rate", "device_inactive", "late_share", "p90_bucket"].map {
                causeHeader.firstRange(of: $0)!.lowerBound
            }
                == ["platform", "unexplained_rate", "device_inactive", "late_share", "p90_bucket"].map {
                    causeHeader.firstRange(of: $0)!.lowerBound
                }.sorted())
        // every data row's p90 cell names a bucket (the fleet's slices all have receipts)
        let buckets = Set(["lt_10s", "lt_1m", "lt_10m", "lt_1h", "lt_6h", "lt_24h", "ge_24h"])
        let dataRows = causeLines.filter { $0.hasPrefix("│") && ($0.contains("android") || $0.contains("ios")) }
        #expect(!dataRows.isEmpty)
        for row in dataRows {
            let cells = row.split(separator: "│").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(buckets.contains(cells.last ?? ""), "\(row)")
        }
        #expect(causeLines.filter { "│┌├└".contains($0.first ?? " ") }.allSatisfy { $0.count <= Self.width })

        let unknown = try CommandRunner.run(byChannel + ["--columns", "colour"], environment: env)
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.hasPrefix("pushledger: unknown column 'colour' (columns: channel, platform, sends"),
            "\(unknown.stderr)")
        #expect(try CommandRunner.run(byChannel + ["--columns", "sends", "--wide"], environment: env).status == 64)

        // Machine formats keep every field whatever the terminal shows.
        let csv = try CommandRunner.run(byChannel + ["--format", "csv"], environment: env)
        #expect(
            csv.stdout.hasPrefix(
                "channel,platform,sends,accepted,rejected,pending,opened,received,blocked_app,blocked_channel,"))
        #expect(
            csv.stdout.split(separator: "\n").first?.contains(
                "superseded,app_stopped,expired,device_inactive,unexplained,"
                    + "latency_lt_10s,latency_lt_1m,latency_lt_10m,latency_lt_1h,latency_lt_6h,latency_lt_24h,"
                    + "latency_ge_24h,superseded_rate,app_stopped_rate,expired_rate,device_inactive_rate,"
                    + "unexplained_rate,late_share,"
                    + "p50_bucket,p90_bucket,p99_bucket") == true,
            "\(csv.stdout.prefix(600))")
        let keys = try CommandRunner.run(["keys", "list", "--format", "json"], environment: env)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(keys.stdout.utf8)) as? [[String: Any]])
        #expect(
            objects.count == 2 && objects.allSatisfy { $0.keys.contains("created_at") && $0["revoked_at"] is NSNull })
    }
}
