import Bench
import Foundation
import PushLedgerSupport
import PushLedgerCLI
import Simulator
import Synchronization

// `pushledger-bench`: tooling for scripts/bench.sh (generation only; the script runs the
// server, the load generator and psql). Kept out of `pushledger`: not a product command.
let inputs = CommandSpec(
    "inputs", summary: "Write the simulator's fleet for the week before last (ISO) as gzip request bodies",
    options: [
        .value("out", help: "Folder for the bodies and manifest.tsv", required: true),
        .value("installs", type: .integer, help: "Simulated installations", default: "4000"),
        .value("seed", type: .integer, help: "Simulator seed", default: "7"),
        .value("flush-days", type: .integer, help: "Days of events an SDK queues per telemetry request", default: "7"),
        .value("sends-per-batch", type: .integer, help: "Sends per /v1/sends request", default: "500"),
        .value("events-per-request", type: .integer,
               help: "Telemetry events per request at most; below 500 requests hold 1, 2, … up to this many in turn (3: phone-sized)",
               default: "500"),
    ])
let post = CommandSpec(
    "post", summary: "Post every request of an inputs folder once over N connections; prints key=value figures",
    options: [
        .value("inputs", help: "Folder written by `inputs`", required: true),
        .value("port", type: .integer, help: "Port of pushledger serve on 127.0.0.1", required: true),
        .value("connections", type: .integer, help: "Concurrent keep-alive connections", default: "32"),
        .value("limit", type: .integer, help: "Post only the first N requests"),
        .value("sends-connections", type: .integer,
               help: "Connections of their own for the /v1/sends requests, posted alongside the telemetry (0: one pool for both)",
               default: "0"),
        .value("rate", type: .integer, help: "Events a second to pace the posting at (0: as fast as the connections go)", default: "0"),
        .value("telemetry-key", help: "Bearer key for /v1/telemetry", environment: "BENCH_TELEMETRY_KEY", required: true),
        .value("sends-key", help: "Bearer key for /v1/sends", environment: "BENCH_SENDS_KEY", required: true),
    ])
let flood = CommandSpec(
    "flood", summary: "One app floods /v1/sends while another posts on a schedule; prints key=value figures of both",
    options: [
        .value("port", type: .integer, help: "Port of pushledger serve on 127.0.0.1", required: true),
        .value("flood-key", help: "Sends key of the flooding app", environment: "BENCH_FLOOD_KEY", required: true),
        .value("flood-app", help: "The flooding key's app id", default: "com.example.flood"),
        .value("flood-connections", type: .integer, help: "Connections of the flooding app (0: the steady app alone)", default: "64"),
        .value("flood-batch", type: .integer, help: "Sends per request of the flooding app", default: "500"),
        .value("steady-key", help: "Sends key of the steady app", environment: "BENCH_STEADY_KEY", required: true),
        .value("steady-app", help: "The steady key's app id", default: "com.example.steady"),
        .value("steady-rate", type: .integer, help: "Requests a second of the steady app", default: "20"),
        .value("steady-connections", type: .integer, help: "Connections of the steady app", default: "4"),
        .value("steady-batch", type: .integer, help: "Sends per request of the steady app", default: "20"),
        .value("seconds", type: .integer, help: "Length of the run", default: "20"),
    ])
let root = CommandSpec(
    "pushledger-bench", summary: "Benchmark inputs and load for scripts/bench.sh and scripts/fairness.sh", subcommands: [inputs, post, flood],
    version: "pushledger-bench 0.1.0")

func fail(_ message: String, _ code: Int32) -> Never {
    FileHandle.standardError.write(Data("pushledger-bench: \(message)\n".utf8))
    exit(code)
}

/// Posts and prints the figures; fails when any request was not answered 200.
func runPost(_ parsed: ParsedCommand) throws -> Int32 {
    var requests = try LoadGenerator.load(URL(fileURLWithPath: parsed.value(String.self, "inputs")))
    if let limit = try parsed.optional(Int.self, "limit") { requests = Array(requests.prefix(limit)) }
    let port = UInt16(try parsed.int("port", in: 1...65_535))
    let keys = ["/v1/telemetry": try parsed.value(String.self, "telemetry-key"), "/v1/sends": try parsed.value(String.self, "sends-key")]
    let sendsConnections = try parsed.int("sends-connections", in: 0...4_096)
    let rate = Double(try parsed.int("rate", in: 0...100_000_000))
    let total = Double(requests.reduce(0) { $0 + $1.events })
    // Each pool paced at its share of the rate, so the mix stays that of the inputs.
    func generator(_ part: [LoadGenerator.Request], connections: Int) -> LoadGenerator {
        let share = total > 0 ? Double(part.reduce(0) { $0 + $1.events }) / total : 0
        return LoadGenerator(port: port, connections: connections, keys: keys, eventsPerSecond: rate > 0 ? rate * share : nil)
    }
    let pools: [(name: String, generator: LoadGenerator, requests: [LoadGenerator.Request])]
    if sendsConnections > 0 {
        let sends = requests.filter { $0.path == "/v1/sends" }, telemetry = requests.filter { $0.path != "/v1/sends" }
        pools = [("telemetry", generator(telemetry, connections: try parsed.positive("connections")), telemetry),
                 ("sends", generator(sends, connections: sendsConnections), sends)]
    } else {
        pools = [("all", generator(requests, connections: try parsed.positive("connections")), requests)]
    }
    let results = Mutex<[String: LoadGenerator.Result]>([:])
    DispatchQueue.concurrentPerform(iterations: pools.count) { i in
        let r = pools[i].generator.run(pools[i].requests)
        results.withLock { $0[pools[i].name] = r }
    }
    let byPool = results.withLock { $0 }
    let all = byPool.values
    let seconds = all.map(\.seconds).max() ?? 0, events = all.reduce(0) { $0 + $1.events }
    let latencies = all.flatMap(\.latencies).sorted()
    let p = { (q: Double, sorted: [Double]) in LoadGenerator.percentile(q, ofSorted: sorted) * 1e3 }
    var line = String(format: "seconds=%.3f requests=%d events=%d events_per_s=%.0f p50_ms=%.1f p99_ms=%.1f",
                      seconds, all.reduce(0) { $0 + $1.requests }, events, Double(events) / max(seconds, 1e-9), p(0.5, latencies), p(0.99, latencies))
    if sendsConnections > 0 {
        for name in ["telemetry", "sends"] {
            guard let r = byPool[name] else { continue }
            line += String(format: " %@_requests=%d %@_events=%d %@_p99_ms=%.1f", name, r.requests, name, r.events, name, p(0.99, r.latencies))
        }
    }
    print(line)
    let failures = all.reduce(into: [Int: Int]()) { $0.merge($1.failures, uniquingKeysWith: +) }
    guard failures.isEmpty else {
        throw LoadError("requests not answered 200 (status: count): \(failures.sorted { $0.key < $1.key })")
    }
    return 0
}

/// Runs the flood and prints what each app saw.
func runFlood(_ parsed: ParsedCommand) throws -> Int32 {
    let run = FairnessFlood(
        port: UInt16(try parsed.int("port", in: 1...65_535)),
        flood: .init(id: try parsed.value(String.self, "flood-app"), key: try parsed.value(String.self, "flood-key"),
                     connections: try parsed.int("flood-connections", in: 0...4_096), batch: try parsed.positive("flood-batch")),
        steady: .init(id: try parsed.value(String.self, "steady-app"), key: try parsed.value(String.self, "steady-key"),
                      connections: try parsed.positive("steady-connections"), batch: try parsed.positive("steady-batch")),
        steadyRate: Double(try parsed.positive("steady-rate")), seconds: Double(try parsed.positive("seconds")))
    let (floodTraffic, steadyTraffic) = run.run()
    for (name, traffic) in [("flood", floodTraffic), ("steady", steadyTraffic)] {
        let others = traffic.statuses.filter { $0.key != 200 && $0.key != 429 }.values.reduce(0, +)
        let ms = { (seconds: Double) in String(Int((seconds * 1e3).rounded())) }
        let figures: [(String, String)] = [
            ("requests", "\(traffic.responses)"), ("200", "\(traffic.ok)"), ("429", "\(traffic.throttled)"),
            ("429_without_retry_after", "\(traffic.throttledWithoutRetryAfter)"), ("other", "\(others)"),
            ("acknowledged", "\(traffic.acknowledgedIDs().count)"), ("attempted", "\(traffic.attemptedIDs().count)"), ("p50_ms", ms(traffic.percentile(0.5))),
            ("p99_ms", ms(traffic.percentile(0.99))), ("max_ms", ms(traffic.latencies.last ?? 0)),
        ]
        print(figures.map { "\(name)_\($0.0)=\($0.1)" }.joined(separator: " "))
    }
    return 0
}

switch CommandParser.parse(Array(CommandLine.arguments.dropFirst()), root: root, environment: ProcessInfo.processInfo.environment) {
case .failure(let usage):
    fail(usage.description, usage.exitCode)
case .success(.help(let text)), .success(.version(let text)):
    print(text)
case .success(.run(let parsed)):
    for (path, command) in [("post", runPost), ("flood", runFlood)] where parsed.path == [path] {
        do { exit(try command(parsed)) } catch let error as OptionError { fail(error.reason, error.exitCode) } catch { fail("\(error)", 1) }
    }
    guard parsed.path == ["inputs"] else { fail("name a command; see pushledger-bench --help", 64) }
    let now = Date()
    // The week before last: no send of it is pending any more, so a rollup refresh (and the
    // weekly report's own refresh) has only dirty days to do, whatever the time of day.
    let week = ISOWeek(containing: now).previous.previous
    var config = SimulationConfig(startMs: Int64(week.monday.daysSinceEpoch) * 86_400_000)
    config.days = 7
    config.duplicateBatchShare = 0
    let out: URL
    do throws(OptionError) {
        config.installs = try parsed.positive("installs")
        config.seed = UInt64(try parsed.int("seed", in: 0...Int.max))
        config.flushDays = try parsed.positive("flush-days")
        config.sendsPerBatch = try parsed.positive("sends-per-batch")
        config.maxEventsPerRequest = try parsed.int("events-per-request", in: 1...500)
        out = URL(fileURLWithPath: try parsed.value(String.self, "out"))
    } catch {
        fail(error.reason, error.exitCode)
    }
    do {
        let s = try IngestInputs.write(config, to: out, nowMs: Int64(now.timeIntervalSince1970 * 1_000))
        // Key=value for the script: the week and the counts it reports.
        print("week=\(String(format: "%04d-W%02d", week.year, week.week)) monday=\(week.monday.daysSinceEpoch)")
        print("requests=\(s.requests) telemetry_requests=\(s.telemetryRequests) sends_requests=\(s.sendsRequests)")
        print("events=\(s.events) telemetry_events=\(s.telemetryEvents) sends=\(s.sends) gzip_bytes=\(s.gzipBytes)")
    } catch {
        fail("cannot write inputs: \(error)", 1)
    }
}
