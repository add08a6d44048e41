/// The simulated fleet: deterministic for a config (same seed → byte-identical batches).
///
/// Timing: events are generated at true times; telemetry `at` = true time + the device's
/// clock skew, and `sent_at` = posting time + skew (the runner re-stamps it when it posts),
/// so the server's corrected time is the true time plus the posting delay. The grid in
/// `Truth.timingNote` keeps that delay from changing any count. The simulated days end at
/// `config.endMs`, which should be at or before the time of posting (see
/// `SimulationConfig.endingBefore`), and start within the contract's 30-day age limit.
public enum Simulation {
    /// Everything in memory: for tests and benchmarks of modest fleets.
    public struct Output: Sendable {
        public var telemetry: [TelemetryBatch]
        public var sends: [SendsBatch]
        public var truth: Truth
    }

    /// The default report window: the simulated days, as of their end.
    public static func defaultWindow(_ config: SimulationConfig) -> TruthWindow {
        TruthWindow(from: config.startMs, to: config.endMs, asOf: config.endMs)
    }

    public static func generate(_ config: SimulationConfig, window: TruthWindow? = nil) -> Output {
        var telemetry: [TelemetryBatch] = []
        let (sends, truth) = stream(config, window: window) { batches, _ in telemetry.append(contentsOf: batches) }
        return Output(telemetry: telemetry, sends: sends, truth: truth)
    }

    /// Generates installation by installation, handing each one's telemetry batches (and how
    /// many sends it received) to `telemetry` as soon as they exist; returns the sender's
    /// batches (in time order) and the truth.
    public static func stream(
        _ config: SimulationConfig, window: TruthWindow? = nil,
        telemetry: (_ batches: [TelemetryBatch], _ sends: Int) throws -> Void
    ) rethrows -> (sends: [SendsBatch], truth: Truth) {
        var truth = TruthAccumulator(config: config, window: window ?? defaultWindow(config))
        var sends: [SimSend] = []
        for index in 0..<config.installs {
            let installation = GeneratedInstallation(index: index, config: config)
            truth.add(installation)
            sends.append(contentsOf: installation.sends)
            try telemetry(installation.batches, installation.sends.count)
        }
        sends.sort { ($0.sentAt, $0.eventID) < ($1.sentAt, $1.eventID) }
        var r = SimRandom(seed: config.seed, stream: 99)
        let batches = SendsEncoder(config: config).batches(sends, random: &r)
        let duplicateSends = batches.filter(\.isRetry).reduce(0) { $0 + $1.eventCount }
        return (batches, truth.finish(duplicateSendEvents: duplicateSends))
    }
}
