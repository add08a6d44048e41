import Foundation
import Postgres
import TestSupport
import Testing

@testable import IngestServer
@testable import Metrics

@Suite("Prometheus metrics")
struct MetricsTests {
    @Test func registryRendersTheTextFormat() {
        let registry = MetricsRegistry()
        let counter = registry.register(
            CounterMetric("demo_requests_total", help: "Requests.", labels: ["path", "status"]))
        let histogram = registry.register(HistogramMetric("demo_seconds", help: "Latency.", buckets: [0.1, 1]))
        _ = registry.register(GaugeMetric("demo_depth", help: "Depth.") { 3 })
        counter.increment(["/a", "200"])
        counter.increment(["/a", "200"], by: 2)
        counter.increment(["quote\"back\\slash\nline", "500"])
        histogram.observe(0.05)
        histogram.observe(0.5)
        histogram.observe(5)
        #expect(
            registry.render() == """
                # HELP demo_requests_total Requests.
                # TYPE demo_requests_total counter
                demo_requests_total{path="/a",status="200"} 3
                demo_requests_total{path="quote\\"back\\\\slash\\nline",status="500"} 1
                # HELP demo_seconds Latency.
                # TYPE demo_seconds histogram
                demo_seconds_bucket{le="0.1"} 1
                demo_seconds_bucket{le="1"} 2
                demo_seconds_bucket{le="+Inf"} 3
                demo_seconds_sum 5.55
                demo_seconds_count 3
                # HELP demo_depth Depth.
                # TYPE demo_depth gauge
                demo_depth 3

                """)
    }

    @Test func appLabelsAreBounded() {
        let metrics = ServerMetrics(version: "test")
        let labels = (0..<(ServerMetrics.maxAppLabels + 50)).map { metrics.appLabel("app.\($0)") }
        #expect(Set(labels).count == ServerMetrics.maxAppLabels + 1)
        #expect(labels.last == "_other")
        #expect(metrics.appLabel("app.0") == "app.0")  // a named app stays named
    }

    @Test func serverExposesItsFamilies() throws {
        let harness = try Harness()
        var unknown = Fixtures.exposure()
        unknown["type"] = "nope"
        let events = [Fixtures.exposure(), unknown]
        _ = try harness.telemetry(Fixtures.telemetry(events: events))
        _ = try harness.telemetry(Fixtures.telemetry(events: [events[0]]))
        _ = try harness.get("/nowhere")
        let reply = try harness.get("/metrics")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let text = reply.text
        for line in [
            "pushledger_http_requests_total{endpoint=\"/v1/telemetry\",status=\"200\"} 2",
            "pushledger_http_requests_total{endpoint=\"other\",status=\"404\"} 1",
            "pushledger_events_total{kind=\"telemetry\",result=\"accepted\"} 1",
            "pushledger_events_total{kind=\"telemetry\",result=\"duplicate\"} 1",
            "pushledger_events_total{kind=\"telemetry\",result=\"rejected\"} 1",
            "pushledger_events_rejected_total{kind=\"telemetry\",code=\"unknown_type\"} 1",
            "pushledger_events_valid_total{type=\"experiment_exposure\"} 2",
            "pushledger_write_batch_requests_count 2",
            "pushledger_queue_depth 0",
            "pushledger_database_up 1",
            "# TYPE pushledger_write_commit_duration_seconds histogram",
            "# TYPE pushledger_database_errors_total counter",
        ] {
            #expect(text.contains(line + "\n"), "missing: \(line)")
        }
        #expect(text.contains("pushledger_build_info{version=\"test\",libmicrohttpd=\"0.9.75\"} 1\n"))
        #expect(text.contains("pushledger_events_total{kind=\"send\",result=\"accepted\"} 0\n"))
        #expect(text.hasSuffix("\n"))
        try lint(text)
    }

    /// serve's own /metrics carries the rollups' lag (read from `pushledger_rollup_status()` at
    /// scrape time): growing while a committed send waits, 0 once a refresh took it, and absent
    /// while the database is down rather than a stale value.
    @Test func serverExposesTheRollupLag() throws {
        let proxy = try OutageTests.proxy()
        let harness = try Harness(proxy: proxy) { config in config.reconnectInterval = 0.05 }
        func lag() throws -> Double? {
            let text = try harness.get("/metrics").text
            let line = text.split(separator: "\n").first { $0.hasPrefix("pushledger_rollup_lag_seconds ") }
            return line.flatMap { Double($0.split(separator: " ")[1]) }
        }
        #expect(try harness.sends(Fixtures.sends([Fixtures.send()])).status == 200)
        usleep(1_200_000)
        let behind = try #require(try lag())
        let read: Double = try Connection.connect(url: harness.databaseURL).query(
            "select lag_seconds from pushledger_rollup_status()")[0]
            .decode("lag_seconds")
        #expect(behind >= 1.2 && behind <= read, "\(behind) / \(read)")

        let connection = try Connection.connect(url: harness.databaseURL)
        try connection.transaction { connection in
            _ = try connection.query("select * from pushledger_rollup_pass(now(), interval '3 days')")
        }
        #expect(try lag() == 0)

        proxy.cut()
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 503)
        let down = try harness.get("/metrics").text
        #expect(
            down.contains("# TYPE pushledger_rollup_lag_seconds gauge")
                && !down.contains("\npushledger_rollup_lag_seconds "), "\(down)")
        proxy.restore()
        waitUntil { (try? harness.get("/readyz").status) == 200 }
        #expect(try lag() == 0)
    }

    /// `promtool check metrics` when the Prometheus package is installed (CI installs it).
    private func lint(_ exposition: String) throws {
        let promtool = "/usr/bin/promtool"
        guard FileManager.default.isExecutableFile(atPath: promtool) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: promtool)
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(exposition.utf8))
        try input.fileHandleForWriting.close()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "promtool: \(report)")
    }
}
