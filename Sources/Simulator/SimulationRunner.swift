import Foundation
import HTTPClient

/// Posts a simulated fleet to a running ingest server: telemetry first (so every token
/// registration is stored before a send names it), then the sender's batches; several
/// posting threads, progress on stderr.
public enum SimulationRunner {
    public struct Options: Sendable {
        public var baseURL: String
        public var telemetryKey: String
        public var sendsKey: String
        /// Requests in flight: the server commits concurrent requests together, so throughput
        /// grows with them.
        public var threads = 24
        public var gzip = true
        public var retry = RetryPolicy()
        public var progress = true
        /// PEM bundle that alone is trusted for an `https://` base URL (default: the system store).
        public var caFile: String? = nil
        public init(baseURL: String, telemetryKey: String, sendsKey: String) {
            self.baseURL = baseURL
            self.telemetryKey = telemetryKey
            self.sendsKey = sendsKey
        }
    }

    /// Generates and posts; returns what was posted and the truth for `window` (default: the simulated days).
    public static func run(
        _ config: SimulationConfig, options: Options, window: TruthWindow? = nil
    ) throws(SimulationError) -> (summary: RunSummary, truth: Truth) {
        let started = Date()
        let queue = RunnerQueue(capacity: 256)
        var workers: [Thread] = []
        let finished = DispatchGroup()
        for _ in 0..<max(1, options.threads) {
            let client: HTTPClient
            do { client = try HTTPClient(baseURL: options.baseURL, caFile: options.caFile) } catch {
                throw SimulationError.invalidOption("--url", error.description)
            }
            finished.enter()
            let thread = Thread {
                work(queue: queue, client: client, options: options)
                finished.leave()
            }
            workers.append(thread)
        }
        workers.forEach { $0.start() }
        let reporter = options.progress ? ProgressReporter(queue: queue, config: config, started: started) : nil
        reporter?.start()

        // generation stops as soon as a posting thread failed
        let generated = try? Simulation.stream(config, window: window) { batches, sends in
            if queue.snapshot().1 != nil { throw CancellationError() }
            queue.noteGenerated(installations: 1, events: batches.reduce(sends) { $0 + $1.eventCount })
            for batch in batches { queue.push(.telemetry(batch)) }
        }
        queue.drain()
        for batch in generated?.sends ?? [] { queue.push(.sends(batch)) }
        queue.close()
        finished.wait()
        reporter?.stop()

        var (summary, failure) = queue.snapshot()
        summary.seconds = Date().timeIntervalSince(started)
        if let failure { throw failure }
        guard let truth = generated?.truth else {
            throw SimulationError.invalidOption("simulate", "generation stopped")
        }
        return (summary, truth)
    }

    private static func work(queue: RunnerQueue, client: HTTPClient, options: Options) {
        defer { client.close() }
        while let job = queue.pop() {
            let path: String, contentType: String, key: String
            let makeBody: () -> [UInt8]
            switch job {
            case .telemetry(let batch):
                (path, contentType, key) = ("/v1/telemetry", "application/json", options.telemetryKey)
                // the device clock at the moment of posting (see `Simulation`)
                makeBody = { batch.stamped(nowMs: Int64(Date().timeIntervalSince1970 * 1_000)) }
            case .sends(let batch):
                (path, contentType, key) = ("/v1/sends", batch.contentType, options.sendsKey)
                makeBody = { batch.body }
            }
            do {
                let response = try client.postWithRetry(
                    path: path, contentType: contentType, gzip: options.gzip, bearer: key, policy: options.retry,
                    onRetry: { _, _ in queue.noteRetry() }, makeBody: makeBody)
                guard response.status == 200, let counts = IngestAnswer(response.body) else {
                    queue.fail(
                        .ingestFailed(
                            endpoint: path, status: response.status, body: String(response.bodyText.prefix(500))))
                    return
                }
                queue.done(job, accepted: counts.accepted, duplicates: counts.duplicates, rejected: counts.rejected)
            } catch {
                queue.fail(.ingestFailed(endpoint: path, status: 0, body: error.detail))
                return
            }
        }
    }
}

/// The counts of a 200 answer: `{"accepted": A, "duplicates": D, "rejected": [...]}`.
struct IngestAnswer {
    var accepted: Int
    var duplicates: Int
    var rejected: Int

    init?(_ body: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let accepted = object["accepted"] as? Int, let duplicates = object["duplicates"] as? Int,
            let rejected = object["rejected"] as? [Any]
        else { return nil }
        self.accepted = accepted
        self.duplicates = duplicates
        self.rejected = rejected.count
    }
}

/// Prints progress to stderr about once a second: events posted, rate, estimated time left.
final class ProgressReporter: @unchecked Sendable {
    private let queue: RunnerQueue
    private let installs: Int
    private let started: Date
    private let stopped = NSCondition()
    private var isStopped = false
    private var thread: Thread?

    init(queue: RunnerQueue, config: SimulationConfig, started: Date) {
        self.queue = queue
        installs = config.installs
        self.started = started
    }

    func start() {
        let thread = Thread { [self] in
            stopped.lock()
            while !isStopped {
                _ = stopped.wait(until: Date().addingTimeInterval(1))
                if !isStopped { report() }
            }
            stopped.unlock()
        }
        self.thread = thread
        thread.start()
    }

    func stop() {
        stopped.lock()
        isStopped = true
        stopped.signal()
        stopped.unlock()
    }

    private func report() {
        let (s, _) = queue.snapshot()
        let elapsed = Date().timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(s.eventsPosted) / elapsed : 0
        // events (telemetry and sends) generated so far, extrapolated to the whole fleet
        let perInstall = s.installationsGenerated > 0 ? Double(s.eventsGenerated) / Double(s.installationsGenerated) : 0
        let estimate = perInstall * Double(installs)
        let left = rate > 0 ? max(0, estimate - Double(s.eventsPosted)) / rate : 0
        let line =
            "simulate: \(s.installationsGenerated)/\(installs) installations, \(s.eventsPosted) events posted, "
            + "\(Int(rate))/s, ~\(Int(left)) s left\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
