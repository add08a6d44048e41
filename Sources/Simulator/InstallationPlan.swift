import PushLedgerContract

/// The fixed traits of one simulated installation, drawn once from its own random stream.
struct InstallationPlan {
    enum TokenFault { case none, sandbox, wrongTopic }

    let index: Int
    let id: SimUUID
    let platform: Platform
    /// Android API level (nil on iOS).
    let sdk: Int
    /// Had the app before the SDK shipped: answered long ago, not in the experiment.
    let existing: Bool
    /// Experiment arm index (nil for existing users).
    let arm: Int?
    let firstSeen: Int64
    /// Device clock minus true time.
    let skewMs: Int64
    let sessionsPerDay: Double
    let orderer: Bool
    let uninstallAt: Int64?
    /// Version index before and from `upgradeAt`.
    let initialVersion: Int
    let upgradeAt: Int64?
    let tokenFault: TokenFault
    let tokenOnly: Bool
    /// Offline periods [from, to), sorted, non-overlapping.
    let offline: [(from: Int64, to: Int64)]
    let timeZoneHours: Int64

    init(index: Int, config: SimulationConfig, random r: inout SimRandom) {
        let start = config.simulatedStartMs, end = config.endMs, span = end - start
        self.index = index
        id = r.uuid()
        platform = r.chance(config.iosShare) ? .ios : .android
        sdk = platform == .android ? config.androidSdkMix[r.weighted(config.androidSdkMix.map(\.weight))].sdk : 0
        existing = r.chance(config.existingUserShare)
        if existing {
            arm = nil
            let delay = Int64(r.exponential(mean: config.existingFirstSessionDays * Double(SimTime.msPerDay)))
            firstSeen = start + min(delay, span - SimTime.msPerHour)
        } else {
            arm = r.weighted(config.arms.map(\.share))
            firstSeen = start + r.below(span - SimTime.msPerHour)
        }
        skewMs = r.chance(config.skewedDeviceShare)
            ? (r.chance(0.5) ? 1 : -1) * (r.below(Int64(config.maxSkewHours) * SimTime.msPerHour) + SimTime.msPerHour)
            : 0
        sessionsPerDay = [0.3, 0.7, 1.2, 2.5][r.weighted([0.25, 0.35, 0.25, 0.15])]
        orderer = r.chance(config.everOrderShare)
        // a constant hazard: as many leave each day whatever the fleet's age
        let lifetime = Int64(r.exponential(mean: Double(SimTime.msPerDay) / max(config.dailyUninstallRate, 1e-9)))
        let uninstall = firstSeen + SimTime.msPerHour + lifetime
        uninstallAt = uninstall < end ? uninstall : nil
        let rollout = start + Int64(config.rolloutDay) * SimTime.msPerDay
        let last = config.appVersions.count - 1
        if last > 0 && (existing || firstSeen < rollout) {
            initialVersion = last - 1
            upgradeAt = rollout + Int64(r.exponential(mean: 3 * Double(SimTime.msPerDay)))
        } else {
            initialVersion = last
            upgradeAt = nil
        }
        let fault = r.unit()
        tokenFault = platform == .ios && fault < 0.01 ? .sandbox : platform == .ios && fault < 0.014 ? .wrongTopic : .none
        tokenOnly = r.chance(config.tokenOnlyShare)
        var periods: [(Int64, Int64)] = []
        var day = SimTime.day(firstSeen)
        while day < SimTime.day(end) {
            if r.chance(config.offlineDailyChance) {
                let from = max(firstSeen, day * SimTime.msPerDay + r.below(SimTime.msPerDay))
                let to = from + SimTime.msPerHour * 2 + r.below(28 * SimTime.msPerHour)
                if periods.last.map({ $0.1 < from }) ?? true { periods.append((from, to)) }
            }
            day += 1
        }
        offline = periods.map { (from: $0.0, to: $0.1) }
        timeZoneHours = Int64(r.int(-8...9))
    }

    func version(at t: Int64) -> Int {
        if let upgradeAt, t >= upgradeAt { return initialVersion + 1 }
        return initialVersion
    }

    var provider: PushProvider { platform == .ios ? .apns : .fcm }

    /// When a device online at `t` is offline, the time it comes back; otherwise `t`.
    func onlineTime(_ t: Int64) -> (time: Int64, period: Int?) {
        for (i, p) in offline.enumerated() where p.from <= t && t < p.to { return (p.to, i) }
        return (t, nil)
    }
}
