import Bench
import CommandLineParsing
import Foundation
import PushLedgerSupport
import Simulator
import Synchronization

// `pushledger-bench`: tooling for scripts/bench.sh (generation only; the script runs the
// server, the load generator and psql). Kept out of `pushledger`: not a product command.
struct BenchCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "pushledger-bench", summary: "Benchmark inputs and load for scripts/bench.sh and scripts/fairness.sh",
            subcommands: [InputsCommand.self, PostCommand.self, FloodCommand.self, KeysCommand.self],
            version: "pushledger-bench 0.1.0")
    }
}

struct InputsCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "inputs", summary: "Write the simulator's fleet for the week before last (ISO) as gzip request bodies")
    }

    @Option(help: "Folder for the bodies and manifest.tsv")
    var out: String

    @Option(help: "Simulated installations", default: 4000)
    var installs: Int

    @Option(help: "Simulator seed", default: 7)
    var seed: Int

    @Option(help: "Days of events an SDK queues per telemetry request", default: 7)
    var flushDays: Int

    @Option(help: "Sends per /v1/sends request", default: 500)
    var sendsPerBatch: Int

    @Option(
        help:
            """
            Telemetry events per request at most; below 500 requests hold 1, 2, … up to this many in turn (3: \
            phone-sized)
            """,
        default: 500)
    var eventsPerRequest: Int
}

struct PostCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "post", summary: "Post every request of an inputs folder once over N connections; prints key=value figures")
    }

    @Option(help: "Folder written by `inputs`")
    var inputs: String

    @Option(help: "Port of pushledger serve on 127.0.0.1")
    var port: Int

    @Option(help: "Concurrent keep-alive connections", default: 32)
    var connections: Int

    @Option(help: "Post only the first N requests")
    var limit: Int?

    @Option(
        help:
            """
            Connections of their own for the /v1/sends requests, posted alongside the telemetry (0: one pool for \
            both)
            """,
        default: 0)
    var sendsConnections: Int

    @Option(help: "Events a second to pace the posting at (0: as fast as the connections go)", default: 0)
    var rate: Int

    @Option(help: "Bearer key for /v1/telemetry", environment: "BENCH_TELEMETRY_KEY")
    var telemetryKey: String

    @Option(help: "Bearer key for /v1/sends", environment: "BENCH_SENDS_KEY")
    var sendsKey: String
}

struct FloodCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "flood",
            summary: "One app floods /v1/sends while another posts on a schedule; prints key=value figures of both")
    }

    @Option(help: "Port of pushledger serve on 127.0.0.1")
    var port: Int

    @Option(help: "Sends key of the flooding app", environment: "BENCH_FLOOD_KEY")
    var floodKey: String

    @Option(help: "The flooding key's app id", default: "com.example.flood")
    var floodApp: String

    @Option(help: "Connections of the flooding app (0: the steady app alone)", default: 64)
    var floodConnections: Int

    @Option(help: "Sends per request of the flooding app", default: 500)
    var floodBatch: Int

    @Option(help: "Sends key of the steady app", environment: "BENCH_STEADY_KEY")
    var steadyKey: String

    @Option(help: "The steady key's app id", default: "com.example.steady")
    var steadyApp: String

    @Option(help: "Requests a second of the steady app", default: 20)
    var steadyRate: Int

    @Option(help: "Connections of the steady app", default: 4)
    var steadyConnections: Int

    @Option(help: "Sends per request of the steady app", default: 20)
    var steadyBatch: Int

    @Option(help: "Length of the run", default: 20)
    var seconds: Int
}

struct KeysCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "keys",
            summary:
                "Random keys flood /v1/telemetry beside a client with a known key; prints key=value figures of both")
    }

    @Option(help: "Port of pushledger serve on 127.0.0.1")
    var port: Int

    @Option(help: "Telemetry key of the ordinary client", environment: "BENCH_TELEMETRY_KEY")
    var key: String

    @Option(help: "The key's app id", default: "com.example.shop")
    var app: String

    @Option(help: "Connections posting random keys (0: the ordinary client alone)", default: 64)
    var floodConnections: Int

    @Option(help: "Requests a second of the ordinary client", default: 20)
    var rate: Int

    @Option(help: "Length of the run", default: 10)
    var seconds: Int
}

func fail(_ message: String, _ code: ExitCode) -> Never {
    FileHandle.standardError.write(Data("pushledger-bench: \(message)\n".utf8))
    exit(code)
}

/// Posts and prints the figures; fails when any request was not answered 200. With
/// `--sends-connections`, the sends and the telemetry go over pools of their own at once, and
/// each pool's p99 is printed too.
func runPost(_ parsed: PostCommand) throws -> Int32 {
    var requests = try LoadGenerator.load(URL(fileURLWithPath: parsed.inputs))
    if let limit = parsed.limit { requests = Array(requests.prefix(limit)) }
    let port = UInt16(try parsed.$port.within(1...65_535))
    let keys = ["/v1/telemetry": parsed.telemetryKey, "/v1/sends": parsed.sendsKey]
    let sendsConnections = try parsed.$sendsConnections.within(0...4_096)
    let rate = Double(try parsed.$rate.within(0...100_000_000))
    let total = Double(requests.reduce(0) { $0 + $1.events })
    // Each pool paced at its share of the rate, so the mix stays that of the inputs.
    func generator(_ part: [LoadGenerator.Request], connections: Int) -> LoadGenerator {
        let share = total > 0 ? Double(part.reduce(0) { $0 + $1.events }) / total : 0
        return LoadGenerator(
            port: port, connections: connections, keys: keys, eventsPerSecond: rate > 0 ? rate * share : nil)
    }
    let connections = try parsed.$connections.positive()
    let pools: [(name: String, generator: LoadGenerator, requests: [LoadGenerator.Request])]
    if sendsConnections > 0 {
        let sends = requests.filter { $0.path == "/v1/sends" }, telemetry = requests.filter { $0.path != "/v1/sends" }
        pools = [
            ("telemetry", generator(telemetry, connections: connections), telemetry),
            ("sends", generator(sends, connections: sendsConnections), sends),
        ]
    } else {
        pools = [("all", generator(requests, connections: connections), requests)]
    }
    let results = Mutex<[String: LoadGenerator.Result]>([:])
    // The wall clock as the first requests go out, after the inputs are read.
    let firstRequest = Date().timeIntervalSince1970
    DispatchQueue.concurrentPerform(iterations: pools.count) { i in
        let r = pools[i].generator.run(pools[i].requests)
        results.withLock { $0[pools[i].name] = r }
    }
    // The wall clock just after the last answer, to compare with what the database recorded.
    let lastAnswer = Date().timeIntervalSince1970
    let byPool = results.withLock { $0 }
    let all = byPool.values
    let seconds = all.map(\.seconds).max() ?? 0, events = all.reduce(0) { $0 + $1.events }
    let latencies = all.flatMap(\.latencies).sorted()
    let p = { (q: Double, sorted: [Double]) in LoadGenerator.percentile(q, ofSorted: sorted) * 1e3 }
    var line = String(
        format: "seconds=%.3f requests=%d events=%d events_per_s=%.0f p50_ms=%.1f p99_ms=%.1f",
        seconds, all.reduce(0) { $0 + $1.requests }, events, Double(events) / max(seconds, 1e-9), p(0.5, latencies),
        p(0.99, latencies))
    if sendsConnections > 0 {
        for name in ["telemetry", "sends"] {
            guard let r = byPool[name] else { continue }
            line += String(
                format: " %@_requests=%d %@_events=%d %@_p99_ms=%.1f", name, r.requests, name, r.events, name,
                p(0.99, r.latencies))
        }
    }
    line += String(format: " first_request_unix=%.6f last_answer_unix=%.6f", firstRequest, lastAnswer)
    print(line)
    let failures = all.reduce(into: [Int: Int]()) { $0.merge($1.failures, uniquingKeysWith: +) }
    guard failures.isEmpty else {
        throw LoadError("requests not answered 200 (status: count): \(failures.sorted { $0.key < $1.key })")
    }
    return 0
}

/// Runs the flood and prints what each app saw.
func runFlood(_ parsed: FloodCommand) throws -> Int32 {
    let run = FairnessFlood(
        port: UInt16(try parsed.$port.within(1...65_535)),
        flood: .init(
            id: parsed.floodApp, key: parsed.floodKey,
            connections: try parsed.$floodConnections.within(0...4_096), batch: try parsed.$floodBatch.positive()),
        steady: .init(
            id: parsed.steadyApp, key: parsed.steadyKey,
            connections: try parsed.$steadyConnections.positive(), batch: try parsed.$steadyBatch.positive()),
        steadyRate: Double(try parsed.$steadyRate.positive()), seconds: Double(try parsed.$seconds.positive()))
    let (floodTraffic, steadyTraffic) = run.run()
    for (name, traffic) in [("flood", floodTraffic), ("steady", steadyTraffic)] {
        let others = traffic.statuses.filter { $0.key != 200 && $0.key != 429 }.values.reduce(0, +)
        let ms = { (seconds: Double) in String(Int((seconds * 1e3).rounded())) }
        let figures: [(String, String)] = [
            ("requests", "\(traffic.responses)"), ("200", "\(traffic.ok)"), ("429", "\(traffic.throttled)"),
            ("429_without_retry_after", "\(traffic.throttledWithoutRetryAfter)"), ("other", "\(others)"),
            ("acknowledged", "\(traffic.acknowledgedIDs().count)"), ("attempted", "\(traffic.attemptedIDs().count)"),
            ("p50_ms", ms(traffic.percentile(0.5))),
            ("p99_ms", ms(traffic.percentile(0.99))), ("max_ms", ms(traffic.latencies.last ?? 0)),
        ]
        print(figures.map { "\(name)_\($0.0)=\($0.1)" }.joined(separator: " "))
    }
    return 0
}

/// Runs the key flood and prints what each side saw.
func runKeys(_ parsed: KeysCommand) throws -> Int32 {
    let run = KeyFlood(
        port: UInt16(try parsed.$port.within(1...65_535)), key: parsed.key, app: parsed.app,
        floodConnections: try parsed.$floodConnections.within(0...4_096), rate: Double(try parsed.$rate.positive()),
        seconds: Double(try parsed.$seconds.positive()))
    let (flood, ordinary) = run.run()
    let ms = { (seconds: Double) in String(format: "%.1f", seconds * 1e3) }
    for (name, traffic) in [("flood", flood), ("ordinary", ordinary)] {
        let statuses = traffic.statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(
            separator: ",")
        let figures: [(String, String)] = [
            ("requests", "\(traffic.requests)"), ("statuses", "'\(statuses)'"),
            ("p50_ms", ms(traffic.percentile(0.5))), ("p99_ms", ms(traffic.percentile(0.99))),
            ("max_ms", ms(traffic.latencies.last ?? 0)),
        ]
        print(figures.map { "\(name)_\($0.0)=\($0.1)" }.joined(separator: " "))
    }
    return 0
}

switch CommandLineParser.parse(
    Array(CommandLine.arguments.dropFirst()), root: BenchCommand.self, environment: ProcessInfo.processInfo.environment)
{
case .failure(let usage):
    fail(usage.description, .usage)
case .success(.help(let text)), .success(.version(let text)):
    print(text)
case .success(.run(let chain)):
    let run: (() throws -> Int32)? =
        if let post = chain.last as? PostCommand {
            { try runPost(post) }
        } else if let flood = chain.last as? FloodCommand {
            { try runFlood(flood) }
        } else if let keys = chain.last as? KeysCommand { { try runKeys(keys) } } else { nil }
    if let run {
        do { exit(try run()) } catch { fail("\(error)", ExitCode(reporting: error)) }
    }
    guard let parsed = chain.last as? InputsCommand else { fail("name a command; see pushledger-bench --help", .usage) }
    let now = Date()
    // The week before last: no send of it is pending any more, so a rollup refresh (and the
    // weekly report's own refresh) has only dirty days to do, whatever the time of day.
    let week = ISOWeek(containing: now).previous.previous
    var config = SimulationConfig(startMs: Int64(week.monday.daysSinceEpoch) * 86_400_000)
    config.days = 7
    config.duplicateBatchShare = 0
    // senders that report their kinds of push: the outcome engine judges which sends can confirm
    config.pushMix = true
    let out: URL
    do throws(OptionError) {
        config.installs = try parsed.$installs.positive()
        config.seed = UInt64(try parsed.$seed.within(0...Int.max))
        config.flushDays = try parsed.$flushDays.positive()
        config.sendsPerBatch = try parsed.$sendsPerBatch.positive()
        config.maxEventsPerRequest = try parsed.$eventsPerRequest.within(1...500)
        out = URL(fileURLWithPath: parsed.out)
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
        fail("cannot write inputs: \(error)", .failure)
    }
}
