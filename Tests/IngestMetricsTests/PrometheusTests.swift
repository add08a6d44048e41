import IngestServer
import Testing

@testable import Metrics

@Suite("Prometheus exposition")
struct PrometheusTests {
    @Test func countersAndGauges() {
        let text = Prometheus.render([
            .counter(
                "pushledger_events_total", help: "Telemetry events accepted.",
                [([MetricLabel("app", "shop"), MetricLabel("type", "notification_received")], 1_027), ([], 3)]),
            .gauge(
                "pushledger_ingest_lag_seconds", help: "Seconds since the latest event.",
                [([MetricLabel("app", "shop")], 12.5)]),
        ])
        #expect(
            text == """
                # HELP pushledger_events_total Telemetry events accepted.
                # TYPE pushledger_events_total counter
                pushledger_events_total{app="shop",type="notification_received"} 1027
                pushledger_events_total 3
                # HELP pushledger_ingest_lag_seconds Seconds since the latest event.
                # TYPE pushledger_ingest_lag_seconds gauge
                pushledger_ingest_lag_seconds{app="shop"} 12.5

                """)
        #expect(text.hasSuffix("\n"))
    }

    @Test func histogramBucketsAreCumulativeAndEndAtInfinity() {
        var histogram = Histogram(upperBounds: [0.1, 0.5, 1])
        for value in [0.05, 0.1, 0.3, 0.7, 2, 7] { histogram.observe(value) }
        let text = Prometheus.render([
            .histogram(
                "http_request_duration_seconds", help: "Request time.",
                [([MetricLabel("route", "/v1/sends")], histogram)])
        ])
        #expect(
            text == """
                # HELP http_request_duration_seconds Request time.
                # TYPE http_request_duration_seconds histogram
                http_request_duration_seconds_bucket{route="/v1/sends",le="0.1"} 2
                http_request_duration_seconds_bucket{route="/v1/sends",le="0.5"} 3
                http_request_duration_seconds_bucket{route="/v1/sends",le="1"} 4
                http_request_duration_seconds_bucket{route="/v1/sends",le="+Inf"} 6
                http_request_duration_seconds_sum{route="/v1/sends"} 10.15
                http_request_duration_seconds_count{route="/v1/sends"} 6

                """)
    }

    @Test func histogramWithoutLabelsAndEmpty() {
        let text = Prometheus.render([.histogram("h", help: "", [([], Histogram(upperBounds: [1, .infinity]))])])
        #expect(
            text == "# HELP h \n# TYPE h histogram\nh_bucket{le=\"1\"} 0\nh_bucket{le=\"+Inf\"} 0\nh_sum 0\nh_count 0\n"
        )
    }

    @Test func histogramObserveAndMerge() {
        var a = Histogram()
        var b = Histogram()
        a.observe(0.005)  // on the bound: counted in it (le is inclusive)
        a.observe(-1)
        b.observe(11)
        b.observe(.nan)
        a.merge(b)
        #expect(a.count == 4)
        #expect(a.bucketCounts.first == 2)
        #expect(a.bucketCounts.last == 2)
        let cumulative = a.cumulativeBuckets
        #expect(cumulative.count == Histogram.defaultLatencyBounds.count + 1)
        #expect(cumulative.last?.upperBound == .infinity)
        #expect(cumulative.last?.count == a.count)
        #expect(zip(cumulative, cumulative.dropFirst()).allSatisfy { $0.count <= $1.count })
    }

    @Test func invalidBoundsAndNamesAreProgrammingErrors() async {
        await #expect(processExitsWith: .failure) { _ = Histogram(upperBounds: [1, 1]) }
        await #expect(processExitsWith: .failure) { _ = Histogram(upperBounds: [2, 1]) }
        await #expect(processExitsWith: .failure) { _ = Histogram(upperBounds: [.nan]) }
        await #expect(processExitsWith: .failure) {
            var a = Histogram(upperBounds: [1])
            a.merge(Histogram(upperBounds: [2]))
        }
        await #expect(processExitsWith: .failure) { _ = MetricFamily.gauge("bad-name", help: "", []) }
        await #expect(processExitsWith: .failure) {
            _ = MetricFamily.gauge("ok", help: "", [([MetricLabel("__x", "v")], 1)])
        }
        await #expect(processExitsWith: .failure) {
            _ = MetricFamily.histogram("ok", help: "", [([MetricLabel("le", "1")], Histogram())])
        }
    }

    @Test func labelValueEscaping() {
        let text = Prometheus.render([
            .gauge(
                "g", help: "x",
                [
                    (
                        [
                            MetricLabel("path", #"C:\dir"#), MetricLabel("q", #"say "hi""#), MetricLabel("nl", "a\nb"),
                            MetricLabel("u", "café ✓"),
                        ], 1
                    )
                ])
        ])
        #expect(text.contains(#"g{path="C:\\dir",q="say \"hi\"",nl="a\nb",u="café ✓"} 1"#))
    }

    @Test func helpEscaping() {
        let text = Prometheus.render([.counter("c_total", help: "Line one\nback\\slash \"quotes stay\"", [])])
        #expect(text == "# HELP c_total Line one\\nback\\\\slash \"quotes stay\"\n# TYPE c_total counter\n")
    }

    @Test(arguments: [
        (0.0, "0"), (1.0, "1"), (-3.0, "-3"), (0.25, "0.25"), (1e-5, "1e-05"), (12.5, "12.5"), (1e16, "1e+16"),
        (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"), (Double.nan, "NaN"),
    ])
    func values(value: Double, text: String) {
        #expect(Prometheus.formatValue(value) == text)
    }

    @Test func names() {
        #expect(Prometheus.isValidMetricName("pushledger:events_total"))
        #expect(Prometheus.isValidMetricName("_x9"))
        #expect(!Prometheus.isValidMetricName("9x"))
        #expect(!Prometheus.isValidMetricName(""))
        #expect(!Prometheus.isValidMetricName("a-b"))
        #expect(Prometheus.isValidLabelName("app_id"))
        #expect(!Prometheus.isValidLabelName("a:b"))
        #expect(!Prometheus.isValidLabelName("__name__"))
        #expect(!Prometheus.isValidLabelName("é"))
    }

    @Test func nothingToRender() {
        #expect(Prometheus.render([]) == "")
        #expect(Prometheus.contentType == "text/plain; version=0.0.4; charset=utf-8")
    }
}
