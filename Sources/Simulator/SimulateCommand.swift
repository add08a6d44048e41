import Foundation

/// `pushledger simulate`: parses its options and runs (the executable only dispatches here).
public struct SimulateCommand: Sendable {
    public static let usage = """
        usage: pushledger simulate [--url URL --telemetry-key KEY --sends-key KEY] [--dry-run]
                                   [--installs N] [--days N] [--seed N] [--start YYYY-MM-DD]
                                   [--inject NAME[@DAY]]... [--truth FILE] [--threads N] [--flush-days N] [--no-gzip]
          Generates a fleet of installations over DAYS days ending at today's UTC midnight and posts
          its telemetry and sends to the ingest server at URL (default http://127.0.0.1:8080).
          --dry-run only generates (reports events/s). --truth writes the expected report figures.
          Scenarios: channel-block-spike, receipts-outage, apns-throttle-burst (DAY is 0-based).
          Keys may also come from PUSHLEDGER_TELEMETRY_KEY and PUSHLEDGER_SENDS_KEY.
        """

    public var config: SimulationConfig
    public var options: SimulationRunner.Options
    public var dryRun = false
    public var truthPath: String?

    /// Parses arguments after `simulate`; `nowMs` anchors the default fortnight, `environment` supplies keys.
    public init(arguments: [String], nowMs: Int64, environment: [String: String] = [:]) throws(SimulationError) {
        var args = arguments[...]
        var days = 14, flushDays = 1, installs: Int?, seed: UInt64?, start: Int64?, injections: [String] = []
        options = SimulationRunner.Options(
            baseURL: "http://127.0.0.1:8080", telemetryKey: environment["PUSHLEDGER_TELEMETRY_KEY"] ?? "",
            sendsKey: environment["PUSHLEDGER_SENDS_KEY"] ?? "")
        func value(_ flag: String) throws(SimulationError) -> String {
            guard let v = args.popFirst() else { throw SimulationError.invalidOption(flag, "needs a value") }
            return v
        }
        func number<T: FixedWidthInteger>(_ flag: String, _ range: ClosedRange<T>) throws(SimulationError) -> T {
            let text = try value(flag)
            guard let n = T(text), range.contains(n) else { throw SimulationError.invalidOption(flag, "expected \(range), got \(text)") }
            return n
        }
        while let flag = args.popFirst() {
            switch flag {
            case "--url": options.baseURL = try value(flag)
            case "--telemetry-key": options.telemetryKey = try value(flag)
            case "--sends-key": options.sendsKey = try value(flag)
            case "--installs": installs = try number(flag, 1...10_000_000)
            case "--days": days = try number(flag, 1...29)
            case "--seed": seed = try number(flag, 0...UInt64.max)
            case "--threads": options.threads = try number(flag, 1...64)
            case "--flush-days": flushDays = try number(flag, 1...29)
            case "--start": start = try Self.parseDay(try value(flag))
            case "--inject": injections.append(try value(flag))
            case "--truth": truthPath = try value(flag)
            case "--no-gzip": options.gzip = false
            case "--no-progress": options.progress = false
            case "--dry-run": dryRun = true
            default: throw SimulationError.invalidOption(flag, "unknown option")
            }
        }
        config = SimulationConfig.endingBefore(nowMs: nowMs, days: days)
        if let start {
            config.startMs = start
            guard config.endMs <= nowMs, nowMs - start <= 29 * SimTime.msPerDay else {
                throw SimulationError.invalidOption("--start", "the simulated days must end by now and start within the last 29 days")
            }
        }
        config.flushDays = flushDays
        if let installs { config.installs = installs }
        if let seed { config.seed = seed }
        for text in injections { config.injections.append(try Injection.parse(text, days: days)) }
        if !dryRun && (options.telemetryKey.isEmpty || options.sendsKey.isEmpty) {
            throw SimulationError.invalidOption("--telemetry-key/--sends-key", "both keys are needed to post (or use --dry-run)")
        }
    }

    static func parseDay(_ text: String) throws(SimulationError) -> Int64 {
        let parts = text.split(separator: "-").compactMap { Int64($0) }
        guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else {
            throw SimulationError.invalidOption("--start", "expected YYYY-MM-DD, got \(text)")
        }
        // days-from-civil (inverse of SimTime.civil)
        let (y0, m, d) = (parts[0], parts[1], parts[2])
        let y = m <= 2 ? y0 - 1 : y0
        let era = SimTime.floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return (era * 146_097 + doe - 719_468) * SimTime.msPerDay
    }

    /// Runs; returns the process exit status. Messages go to stderr, the summary to stdout.
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
            print(summary)
            return 0
        } catch {
            FileHandle.standardError.write(Data("pushledger simulate: \(error.detail)\n".utf8))
            return 1
        }
    }
}
