import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `make demo` in small: the real binaries as scripts/demo.sh runs them (migrate, serve as a
/// child process, keys, simulate, rollup, reports, SIGTERM), with the silent-loss report held
/// against the simulator's `--truth` file.
@Suite struct DemoTests {
    @Test func reducedDemoMatchesTheTruthFile() throws {
        let database = try TestDatabase.empty(prefix: "demo")
        let env = ["DATABASE_URL": database, "PUSHLEDGER_APP": "com.example.shop"]
        let migrate = try CommandRunner.run(["migrate", "--log-level", "warning"], environment: env)
        try #require(migrate.status == 0, "\(migrate.stderr)")

        let port = try #require(Self.freePort())
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("demo-serve-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let serve = Process()
        serve.executableURL = CommandRunner.executable
        serve.arguments = ["serve", "--listen", "127.0.0.1:\(port)"]
        serve.environment = env.merging(["PATH": "/usr/bin:/bin"]) { $1 }
        serve.standardError = try FileHandle(forWritingTo: log)
        serve.standardOutput = FileHandle.nullDevice
        try serve.run()
        defer { if serve.isRunning { serve.terminate(); serve.waitUntilExit() } }
        try #require(Self.waitForListener(port: port), "serve never listened: \(Self.read(log))")

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
             "--installs", "300", "--days", "8", "--seed", "7", "--no-progress", "--truth", truthFile.path], environment: env)
        try #require(simulate.status == 0, "\(simulate.stderr)")

        // A graceful stop: in-flight requests finish, then exit 0.
        serve.terminate()
        serve.waitUntilExit()
        // SIGTERM drains and exits 0 (tested on a real process: signalling the test process
        // itself would interrupt every other test running in parallel).
        #expect(serve.terminationReason == .exit && serve.terminationStatus == 0, "\(Self.read(log))")
        #expect(Self.read(log).contains("signal received, draining"))
        #expect(Self.read(log).contains("msg=stopped"))

        let rollup = try CommandRunner.run(["rollup"], environment: env)
        #expect(rollup.status == 0, "\(rollup.stderr)")
        let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: truthFile)) as? [String: Any])
        let from = try #require(truth["from"] as? String), to = try #require(truth["to"] as? String)
        let asOf = try #require(truth["as_of"] as? String)

        let weekly = try CommandRunner.run(["report", "weekly", "--format", "json"], environment: env)
        #expect(weekly.status == 0, "\(weekly.stderr)")
        #expect(try JSONSerialization.jsonObject(with: Data(weekly.stdout.utf8)) is [String: Any])

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

    static func read(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    /// A port the kernel says is free now (bind to 0, read it back, release it).
    static func freePort() -> UInt16? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : nil
    }

    /// Polls until something accepts connections on `port` (at most ~20 s).
    static func waitForListener(port: UInt16) -> Bool {
        for _ in 0..<400 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = loopback(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(fd)
            if connected { return true }
            usleep(50_000)
        }
        return false
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
