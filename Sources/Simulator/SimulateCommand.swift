import CommandLineParsing
import Foundation
import PushLedgerSupport

/// `pushledger simulate`'s command line: every option, typed, with its default. The
/// executable declares it among its commands; ``SimulateCommand`` turns it into a run.
public struct SimulateArguments: ParsableCommand {
    /// The defaults the help shows are the configuration's own.
    static let defaults = SimulationConfig(startMs: 0)
    static let runner = SimulationRunner.Options(baseURL: "http://127.0.0.1:8080", telemetryKey: "", sendsKey: "")

    public static var configuration: CommandConfiguration {
        CommandConfiguration(
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
                their counts (causes, latency) beside the outcomes. With --web-share, that share of the \
                installations are browsers (Chrome ~65 %, Safari ~15 % with iOS home-screen web apps, Edge \
                ~10 %, Firefox ~7 %, Samsung Internet, Opera and others the rest), each subscribed through its \
                browser's push service (FCM, Mozilla, Apple, Windows): permissions granted, denied or left at \
                default, subscriptions that expire (404/410), browsers closed at night and for days, Web Push \
                sends with TTL, Topic and Urgency; --truth counts them per browser and push service.
                """)
    }

    public init() {}

    @Option(
        help: "Ingest server base URL (http:// or https://)", default: SimulateArguments.runner.baseURL,
        environment: "PUSHLEDGER_INGEST_URL", placeholder: "url")
    var url: String

    @Option(
        help: "PEM CA bundle trusted for an https:// --url instead of the system store",
        environment: "PUSHLEDGER_CA_FILE",
        placeholder: "file")
    var caFile: String?

    @Option(help: "Bearer key with the telemetry scope", environment: "PUSHLEDGER_TELEMETRY_KEY", placeholder: "key")
    var telemetryKey: String?

    @Option(help: "Bearer key with the sends scope", environment: "PUSHLEDGER_SENDS_KEY", placeholder: "key")
    var sendsKey: String?

    @Option(help: "Installations over all simulated days", default: SimulateArguments.defaults.installs)
    var installs: Int

    @Option(help: "Reported days (1-29; with the warm-up 29 at most)", default: SimulateArguments.defaults.days)
    var days: Int

    @Option(
        help: "Days of a mature, steady fleet before the reported days (0, or 11-28)",
        default: SimulateArguments.defaults.warmupDays)
    var warmupDays: Int

    @Option(help: "Random seed", default: Int(SimulateArguments.defaults.seed))
    var seed: Int

    @Option(help: "First reported day, YYYY-MM-DD (default: --days before today)", placeholder: "date")
    var start: String?

    @Option(help: "Scenario NAME[@DAY]; may be repeated", placeholder: "scenario")
    var inject: [String]

    @Option(help: "Write the expected figures as JSON to this file", placeholder: "file")
    var truth: String?

    @Option(help: "Write what FCM's Data API would report for the FCM sends (JSON) to this file", placeholder: "file")
    var fcmDeliveryData: String?

    @Option(help: "The Firebase app id in that file", default: FCMDeliveryView.simulatedAppID)
    var fcmAppID: String

    @Option(help: "Posting threads", default: SimulateArguments.runner.threads)
    var threads: Int

    @Option(help: "Days an app queues telemetry before flushing", default: SimulateArguments.defaults.flushDays)
    var flushDays: Int

    @Flag(
        help: """
            Senders report v1.3's kinds of push: APNs alerts with and without mutable content, background \
            refreshes, FCM notification, hybrid and data messages (without it every send is a plain alert)
            """)
    var pushMix: Bool

    @Option(
        help: """
            Share of installations that are browsers (Web Push): Chrome, Safari (with iOS home-screen \
            web apps), Edge, Firefox, Samsung Internet, Opera, each with its push service (0-1)
            """,
        default: SimulateArguments.defaults.webShare, placeholder: "share")
    var webShare: Double

    @Flag(help: "Post uncompressed bodies")
    var noGzip: Bool

    @Flag(help: "No progress lines on stderr")
    var noProgress: Bool

    @Flag(help: "Only generate (reports events per second); post nothing")
    var dryRun: Bool
}

/// A simulation ready to run: the configuration and runner options the arguments ask for.
public struct SimulateCommand: Sendable {
    public var config: SimulationConfig
    public var options: SimulationRunner.Options
    public var dryRun: Bool
    public var truthPath: String?
    public var fcmDeliveryPath: String?
    public var fcmAppID = FCMDeliveryView.simulatedAppID

    /// Reads the arguments; `nowMs` anchors the default days and bounds `--start`.
    public init(_ arguments: SimulateArguments, nowMs: Int64) throws(SimulationError) {
        func check(_ value: Int, _ option: Option<Int>, _ range: ClosedRange<Int>) throws(SimulationError) -> Int {
            guard range.contains(value) else {
                throw SimulationError.invalidOption(
                    option.display, "expected \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }
        let days = try check(arguments.days, arguments.$days, 1...29)
        config = SimulationConfig.endingBefore(nowMs: nowMs, days: days)
        let warmup = try check(arguments.warmupDays, arguments.$warmupDays, 0...28)
        if warmup > 0 {
            guard warmup >= 11, warmup + days <= 29 else {
                throw SimulationError.invalidOption(
                    "--warmup-days", "expected 11...\(29 - days) with --days \(days) (0: none)")
            }
            config.makeSteady(warmupDays: warmup)
        }
        if let start = arguments.start {
            config.startMs = try Self.parseDay(start)
            guard config.endMs <= nowMs, nowMs - config.simulatedStartMs <= 29 * SimTime.msPerDay else {
                throw SimulationError.invalidOption(
                    "--start", "the simulated days must end by now and start within the last 29 days")
            }
        }
        config.installs = try check(arguments.installs, arguments.$installs, 1...10_000_000)
        config.seed = UInt64(try check(arguments.seed, arguments.$seed, 0...Int.max))
        config.flushDays = try check(arguments.flushDays, arguments.$flushDays, 1...29)
        config.pushMix = arguments.pushMix
        guard (0...1).contains(arguments.webShare) else {
            throw SimulationError.invalidOption(arguments.$webShare.display, "expected a share from 0 to 1")
        }
        config.webShare = arguments.webShare
        for text in arguments.inject { config.injections.append(try Injection.parse(text, days: days)) }
        options = SimulationRunner.Options(
            baseURL: arguments.url, telemetryKey: arguments.telemetryKey ?? "", sendsKey: arguments.sendsKey ?? "")
        options.caFile = arguments.caFile
        options.threads = try check(arguments.threads, arguments.$threads, 1...64)
        options.gzip = !arguments.noGzip
        options.progress = !arguments.noProgress
        dryRun = arguments.dryRun
        truthPath = arguments.truth
        fcmDeliveryPath = arguments.fcmDeliveryData
        fcmAppID = arguments.fcmAppID
        if !dryRun && (options.telemetryKey.isEmpty || options.sendsKey.isEmpty) {
            throw SimulationError.invalidOption(
                "--telemetry-key/--sends-key", "both keys are needed to post (or use --dry-run)")
        }
    }

    /// Parses arguments after `simulate` with the project's command-line parser (tests, tools).
    public init(arguments: [String], nowMs: Int64, environment: [String: String] = [:]) throws(SimulationError) {
        switch CommandLineParser.parse(arguments, root: SimulateArguments.self, environment: environment) {
        case .success(.run(let chain)):
            guard let parsed = chain.last as? SimulateArguments else {
                preconditionFailure("simulate parses as itself")
            }
            try self.init(parsed, nowMs: nowMs)
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
                var events = 0
                var batches = 0
                let result = Simulation.stream(config) { b, sends in
                    batches += b.count
                    events += b.reduce(sends) { $0 + ($1.isRetry ? 0 : $1.eventCount) }
                }
                let seconds = Date().timeIntervalSince(started)
                truth = result.truth
                summary =
                    "generated \(events) events (\(truth.telemetryEvents) telemetry, \(truth.sends) sends) in "
                    + "\(batches) telemetry and \(result.sends.count) send batches in "
                    + "\(String(format: "%.2f", seconds)) s: "
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
                guard
                    FileManager.default.createFile(
                        atPath: fcmDeliveryPath, contents: Data(truth.fcmDelivery.dataAPIPage(fcmAppID: fcmAppID)))
                else {
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
