import PushLedgerContract

/// The fixed traits of one simulated installation, drawn once from its own random stream.
struct InstallationPlan {
    enum TokenFault { case none, sandbox, wrongTopic }

    let index: Int
    let id: SimUUID
    let platform: Platform
    /// Android API level (0 on iOS and web).
    let sdk: Int
    /// The browser, on web.
    let web: WebTraits?
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
    /// v1.2 device state the snapshots report (Android: standby bucket, background restriction,
    /// battery optimisation exemption; iOS: Low Power Mode).
    let standbyBucket: String?
    let backgroundRestricted: Bool?
    let ignoringBatteryOptimizations: Bool?
    let lowPowerMode: Bool?
    /// Android 15+: when the user or the system force-stopped the app (sorted).
    let forceStops: [Int64]

    static let standbyBuckets = [
        ("active", 0.25), ("working_set", 0.35), ("frequent", 0.2), ("rare", 0.15), ("restricted", 0.05),
    ]

    init(index: Int, config: SimulationConfig, random r: inout SimRandom) {
        let start = config.simulatedStartMs, end = config.endMs, span = end - start
        self.index = index
        id = r.uuid()
        let phone: Platform = r.chance(config.iosShare) ? .ios : .android
        // whether it is a browser draws from a stream of its own, so the phones stay as they were
        var browser = SimRandom(seed: config.seed &* 0xD1B5_4A32_D192_ED03 &+ UInt64(index), stream: 10)
        web = browser.chance(config.webShare) ? WebTraits(fleet: config.web, random: &browser) : nil
        platform = web == nil ? phone : .web
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
        skewMs =
            r.chance(config.skewedDeviceShare)
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
        tokenFault =
            platform == .ios && fault < 0.01 ? .sandbox : platform == .ios && fault < 0.014 ? .wrongTopic : .none
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
        timeZoneHours = Int64(r.int(-8...9))
        if let web {
            // a browser is also closed: at night on a computer, and now and then for days
            let closed = web.closures(
                from: firstSeen, to: end, timeZoneHours: timeZoneHours, fleet: config.web, random: &browser)
            periods = Self.merged(periods + closed)
        }
        offline = periods.map { (from: $0.0, to: $0.1) }
        // v1.2 traits draw from their own stream, so the rest of the fleet stays as it was
        var traits = SimRandom(seed: config.seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index), stream: 7)
        switch platform {
        case .android:
            standbyBucket = Self.standbyBuckets[traits.weighted(Self.standbyBuckets.map(\.1))].0
            backgroundRestricted = traits.chance(config.backgroundRestrictedShare)
            ignoringBatteryOptimizations = traits.chance(0.1)
            lowPowerMode = nil
        case .ios:
            (standbyBucket, backgroundRestricted, ignoringBatteryOptimizations) = (nil, nil, nil)
            lowPowerMode = traits.chance(0.2)
        case .web:
            // a browser reports none of the devices' power states
            (standbyBucket, backgroundRestricted, ignoringBatteryOptimizations, lowPowerMode) = (nil, nil, nil, nil)
        }
        var stops: [Int64] = []
        if platform == .android && sdk >= 35 {
            var day = SimTime.day(firstSeen)
            while day < SimTime.day(end) {
                if traits.chance(config.forceStopDailyChance) {
                    stops.append(
                        max(firstSeen + SimTime.msPerHour, day * SimTime.msPerDay + traits.below(SimTime.msPerDay)))
                }
                day += 1
            }
        }
        forceStops = stops
    }

    /// Periods sorted and joined where they overlap or touch.
    static func merged(_ periods: [(Int64, Int64)]) -> [(Int64, Int64)] {
        var result: [(Int64, Int64)] = []
        for p in periods.sorted(by: { $0.0 < $1.0 }) {
            if let last = result.last, p.0 <= last.1 {
                result[result.count - 1].1 = max(last.1, p.1)
            } else {
                result.append(p)
            }
        }
        return result
    }

    /// Whether the device defers normal-priority pushes (a rare or restricted standby bucket, a
    /// background restriction, Low Power Mode).
    var defersNormalPriority: Bool {
        standbyBucket == "rare" || standbyBucket == "restricted" || backgroundRestricted == true || lowPowerMode == true
    }

    /// Whether the app was force-stopped at `t` and has not started since (`starts`: process starts, sorted).
    func forceStopped(at t: Int64, starts: [Int64]) -> Bool {
        guard let stop = forceStops.last(where: { $0 <= t }) else { return false }
        return !starts.contains { $0 > stop && $0 <= t }
    }

    func version(at t: Int64) -> Int {
        if let upgradeAt, t >= upgradeAt { return initialVersion + 1 }
        return initialVersion
    }

    var provider: PushProvider { platform.pushProvider }

    /// When a device online at `t` is offline, the time it comes back; otherwise `t`.
    func onlineTime(_ t: Int64) -> (time: Int64, period: Int?) {
        for (i, p) in offline.enumerated() where p.from <= t && t < p.to { return (p.to, i) }
        return (t, nil)
    }
}
