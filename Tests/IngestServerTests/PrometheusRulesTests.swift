import Foundation
import TestSupport
import Testing

@testable import Metrics

/// The ingestor's Prometheus rules, checked and unit-tested by promtool (Debian `prometheus`).
@Suite("Prometheus rules for the ingestor")
struct PrometheusRulesTests {
    static let folder = TestDatabase.repositoryRoot.appendingPathComponent("prometheus")

    /// Runs promtool in prometheus/; returns its exit status and output.
    static func promtool(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["promtool"] + arguments
        process.currentDirectoryURL = folder
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test("promtool check rules accepts the rules file")
    func checkRules() throws {
        let (status, output) = try Self.promtool(["check", "rules", "pushledger-ingest.rules.yml"])
        #expect(status == 0, "\(output) (install Debian's prometheus package for promtool)")
        #expect(output.contains("SUCCESS: 9 rules found"))
    }

    @Test("promtool test rules: each alert fires on its scenario and stays quiet on the others")
    func testRules() throws {
        let (status, output) = try Self.promtool(["test", "rules", "pushledger-ingest.rules.test.yml"])
        #expect(status == 0, "\(output)")
    }

    @Test("the rules use the ingestor's metric names")
    func metricNames() throws {
        let rules = try String(
            contentsOf: Self.folder.appendingPathComponent("pushledger-ingest.rules.yml"), encoding: .utf8)
        for name in [
            "pushledger_http_requests_total", "pushledger_queue_depth", "pushledger_queue_capacity",
            "pushledger_events_total", "pushledger_database_up", "pushledger_rollup_lag_seconds",
            "pushledger_rollup_follower_leading",
        ] {
            #expect(rules.contains(name), "\(name)")
        }
    }
}
