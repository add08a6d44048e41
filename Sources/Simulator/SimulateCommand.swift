import Foundation
import PushLedgerSupport
import PushLedgerCLI

/// `pushledger simulate`: its option spec, reading parsed options into a config, and running.
/// The executable declares `spec` among its commands and calls `init(parsed:nowMs:)` + `run()`.
public struct SimulateCommand: Sendable {
    /// The defaults the help shows are the configuration's own.
    private static let defaults = SimulationConfig(startMs: 0)
    private static let runner = SimulationRunner.Options(baseURL: "http://127.0.0.1:8080", telemetryKey: "", sendsKey: "")

    public static let spec = CommandSpec(
        "simulate", summary: "Simulate a fleet and post its telemetry and sends (or only generate them)",
        discussion: """
            Generates installations over --days days ending at today's UTC midnight (so everything is \
            within the 30-day age limit), posts telemetry first and then the sender's results to the \
            ingest server, and can write the expected report figures (--truth). The same --seed gives \
            byte-identical data. Scenarios for --inject: channel-block-spike, receipts-outage, \
            apns-throttle-burst, each optionally @DAY (0-based; default the middle day). Without \
            --warmup-days the SDK ships on the first day and the fleet grows and settles through the \
            days (a launch); with it, a mature app's fleet is simulated (and posted) for that many days \
            first, so the reported days are alike and `alert check` compares like with like. \
            The sender sets collapse ids on order updates and expiries on offers; devices go offline \
            for hours, defer normal-priority pushes, get force-stopped (Android 15+) and uninstalled, \
            so every cause of an unconfirmed send and every latency bucket occurs; --truth states \
            their counts (causes, latency) beside the outcomes.
            """,
        options: [
            .value("url", help: "Ingest server base URL (http:// or https://)", default: runner.baseURL, environment: "PUSHLEDGER_INGEST_URL", placeholder: "url"),
            .value("ca-file", help: "PEM CA bundle trusted for an https:// --url instead of the system store", environment: "PUSHLEDGER_CA_FILE", placeholder: "file"),
            .value("telemetry-key", help: "Bearer key with the telemetry scope", environment: "PUSHLEDGER_TELEMETRY_KEY", placeholder: "key"),
            .value("sends-key", help: "Bearer key with the sends scope", environment: "PUSHLEDGER_SENDS_KEY", placeholder: "key"),
            .value("installs", type: .integer, help: "Installations over all simulated days", default: "\(defaults.installs)"),
            .value("days", type: .integer, help: "Reported days (1-29; with the warm-up 29 at most)", default: "\(defaults.days)"),
            .value("warmup-days", type: .integer, help: "Days of a mature, steady fleet before the reported days (0, or 11-28)", default: "\(defaults.warmupDays)"),
            .value("seed", type: .integer, help: "Random seed", default: "\(defaults.seed)"),
            .value("start", help: "First reported day, YYYY-MM-DD (default: --days before today)", placeholder: "date"),
            .repeatable("inject", help: "Scenario NAME[@DAY]; may be repeated", placeholder: "scenario"),
            .value("truth", help: "Write the expected figures as JSON to this file", placeholder: "file"),
            .value("fcm-delivery-data", help: "Write what FCM's Data API would report for the FCM sends (JSON) to this file", placeholder: "file"),
            .value("fcm-app-id", help: "The Firebase app id in that file", default: FCMDeliveryView.simulatedAppID),
            .value("threads", type: .integer, help: "Posting threads", default: "\(runner.threads)"),
            .value("flush-days", type: .integer, help: "Days an app queues telemetry before flushing", default: "\(defaults.flushDays)"),
            .flag("no-gzip", help: "Post uncompressed bodies"),
            .flag("no-progress", help: "No progress lines on stderr"),
            .flag("dry-run", help: "Only generate (reports events per second); post nothing"),
        ])

    public var config: SimulationConfig
    public var options: SimulationRunner.Options
    public var dryRun: Bool
    public var truthPath: String?
    public var fcmDeliveryPath: String?
    public var fcmAppID = FCMDeliveryView.simulatedAppID

    /// Reads parsed options; `nowMs` anchors the default days and bounds `--start`.
    public init(parsed: ParsedCommand, nowMs: Int64) throws(SimulationError) {
        func integer(_ name: String, _ range: ClosedRange<Int>) throws(SimulationError) -> Int {
            guard let n = parsed.integer(name), range.contains(n) else {
                throw SimulationError.invalidOption("--\(name)", "expected \(range.lowerBound)...\(range.upperBound)")
            }
            return n
        }
        let days = try integer("days", 1...29)
        config = SimulationConfig.endingBefore(nowMs: nowMs, days: days)
        let warmup = try integer("warmup-days", 0...28)
        if warmup > 0 {
            guard warmup >= 11, warmup + days <= 29 else {
                throw SimulationError.invalidOption("--warmup-days", "expected 11...\(29 - days) with --days \(days) (0: none)")
            }
            config.makeSteady(warmupDays: warmup)
        }
        if let start = parsed.string("start") {
            config.startMs = try Self.parseDay(start)
            guard config.endMs <= nowMs, nowMs - config.simulatedStartMs <= 29 * SimTime.msPerDay else {
                throw SimulationError.invalidOption("--start", "the simulated days must end by now and start within the last 29 days")
            }
        }
        config.installs = try integer("installs", 1...10_000_000)
        config.seed = UInt64(try integer("seed", 0...Int.max))
        config.flushDays = try integer("flush-days", 1...29)
        for text in parsed.strings("inject") { config.injections.append(try Injection.parse(text, days: days)) }
        options = SimulationRunner.Options(
            baseURL: parsed.string("url") ?? Self.runner.baseURL, telemetryKey: parsed.string("telemetry-key") ?? "",
            sendsKey: parsed.string("sends-key") ?? "")
        options.caFile = parsed.string("ca-file")
        options.threads = try integer("threads", 1...64)
        options.gzip = !parsed.flag("no-gzip")
        options.progress = !parsed.flag("no-progress")
        dryRun = parsed.flag("dry-run")
        truthPath = parsed.string("truth")
        fcmDeliveryPath = parsed.string("fcm-delivery-data")
        fcmAppID = parsed.string("fcm-app-id") ?? FCMDeliveryView.simulatedAppID
        if !dryRun && (options.telemetryKey.isEmpty || options.sendsKey.isEmpty) {
            throw SimulationError.invalidOption("--telemetry-key/--sends-key", "both keys are needed to post (or use --dry-run)")
        }
    }

    /// Parses arguments after `simulate` with the project's command-line parser (tests, tools).
    public init(arguments: [String], nowMs: Int64, environment: [String: String] = [:]) throws(SimulationError) {
        switch CommandParser.parse(arguments, root: Self.spec, environment: environment) {
        case .success(.run(let parsed)): try self.init(parsed: parsed, nowMs: nowMs)
        case .success: throw SimulationError.invalidOption("simulate", "help and version are not runs")
        case .failure(let usage): throw SimulationError.invalidOption("simulate", usage.reason)
        }
    }

    static func parseDay(_ text: String) throws(SimulationError) -> Int64 {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let y = parts[0], let m = parts[1], let d = parts[2],
            let date = CivilDate(year: y, month: m, day: d)
        else {
            throw SimulationError.invalidOption("--start", "expected YYYY-MM-DD, got \(text)")
        }
        return Int64(date.daysSinceEpoch) * SimTime.msPerDay
    }

    /// Runs; returns the exit status. Progress and errors go to stderr, the summary to stdout.
    public func run() -> Int32 {
        do throws(SimulationError) {
            let summary: String
            let truth: Truth
            if dryRun {
                let started = Date()
                var events = 0, batches = 0
                let result = Simulation.stream(config) { b, sends in
                    batches += b.count
                    events += b.reduce(sends) { $0 + ($1.isRetry ? 0 : $1.eventCount) }
                }
                let seconds = Date().timeIntervalSince(started)
                truth = result.truth
                summary = "generated \(events) events (\(truth.telemetryEvents) telemetry, \(truth.sends) sends) in "
                    + "\(batches) telemetry and \(result.sends.count) send batches in \(String(format: "%.2f", seconds)) s: "
                    + "\(Int(Double(events) / max(seconds, 1e-9))) events/s"
            } else {
                let result = try SimulationRunner.run(config, options: options)
                truth = result.truth
                summary = result.summary.description
            }
            if let truthPath {
                guard FileManager.default.createFile(atPath: truthPath, contents: Data(truth.json())) else {
                    throw SimulationError.invalidOption("--truth", "cannot write \(truthPath)")
                }
            }
            if let fcmDeliveryPath {
                guard FileManager.default.createFile(atPath: fcmDeliveryPath, contents: Data(truth.fcmDelivery.dataAPIPage(fcmAppID: fcmAppID))) else {
                    throw SimulationError.invalidOption("--fcm-delivery-data", "cannot write \(fcmDeliveryPath)")
                }
            }
            print(summary)
            return 0
        } catch {
            FileHandle.standardError.write(Data("pushledger simulate: \(error.detail)\n".utf8))
            return 1
        }
    }
}
