/// Everything one installation contributes: its telemetry (normalised to the time grid,
/// with ids and versions), the sender's attempts to it, and the encoded batches.
struct GeneratedInstallation {
    let plan: InstallationPlan
    let events: [SimEvent]
    let sends: [SimSend]
    let batches: [TelemetryBatch]

    /// Independent random streams per installation and purpose keep the output identical
    /// whatever order or thread installations are generated in.
    init(index: Int, config: SimulationConfig) {
        let base = config.seed &* 0x2545_F491_4F6C_DD1D &+ UInt64(index)
        var planRandom = SimRandom(seed: base, stream: 1)
        plan = InstallationPlan(index: index, config: config, random: &planRandom)
        var timeline = InstallationTimeline(plan: plan, config: config, random: SimRandom(seed: base, stream: 2))
        timeline.run()
        var sender = SenderSimulation(plan: plan, config: config, random: SimRandom(seed: base, stream: 3))
        sender.run(timeline: timeline)
        var r = SimRandom(seed: base, stream: 4)
        events = Self.normalize(timeline.events + sender.events, plan: plan, horizon: timeline.horizon, random: &r)
        sends = sender.sends
        batches = TelemetryEncoder(plan: plan, config: config).batches(events, random: &r)
    }

    /// Puts every event on its own minute (second 5–25), in intended order, drops what
    /// would fall after the horizon, and assigns ids and app versions. A pinned event keeps its
    /// time when it comes after the one before.
    private static func normalize(
        _ raw: [SimEvent], plan: InstallationPlan, horizon: Int64, random r: inout SimRandom
    ) -> [SimEvent] {
        let order = raw.indices.sorted { (raw[$0].at, $0) < (raw[$1].at, $1) }
        var result: [SimEvent] = []
        result.reserveCapacity(raw.count)
        var lastMinute = Int64.min
        for i in order {
            var event = raw[i]
            let own = SimTime.floorDiv(event.at, SimTime.msPerMinute)
            if event.pinned && (own > lastMinute || (own == lastMinute && event.at > result.last?.at ?? .min)) {
                if event.at >= horizon { break }
                lastMinute = own
            } else {
                event.pinned = false
                let minute = max(own, lastMinute == .min ? .min : lastMinute + 1)
                event.at = SimGrid.telemetryTime(minute: minute, &r)
                if (minute + 1) * SimTime.msPerMinute > horizon { break }
                lastMinute = minute
            }
            event.version = plan.version(at: event.at)
            event.id = r.uuid()
            result.append(event)
        }
        return result
    }
}
