import PushLedgerContract

/// Lives one installation's fortnight: sessions, prompts, settings changes, tokens and
/// orders, and the telemetry the SDK records along the way (at intended times).
struct InstallationTimeline {
    let plan: InstallationPlan
    let config: SimulationConfig
    var r: SimRandom
    var events: [SimEvent] = []
    var state = DeviceSettings()
    /// Full settings after each change, in time order (the first entry holds from the beginning).
    var changes: [(at: Int64, settings: DeviceSettings)] = []
    var scheduled: [(at: Int64, change: SettingsChange)] = []
    /// Tokens in registration order: when the device registered it and when the sender learnt it.
    var tokens: [(token: String, registeredAt: Int64, knownAt: Int64)] = []
    var orders: [Int64] = []
    /// When the app's process started (each session): a force-stopped app starts again only then.
    var processStarts: [Int64] = []
    /// Web: when each endpoint stopped working (the subscription expired, or the permission went).
    var subscriptionEnds: [String: Int64] = [:]
    /// Web: the service worker subscribes again at the next visit after its subscription expired.
    private var resubscribes = false
    private var systemPromptsShown = 0
    private var answered = false
    private var legacyTokenPending = false
    private var now: Int64 = .min

    init(plan: InstallationPlan, config: SimulationConfig, random: SimRandom) {
        self.plan = plan
        self.config = config
        r = random
    }

    var horizon: Int64 { min(config.endMs, plan.uninstallAt ?? .max) }

    mutating func run() {
        initialState()
        scheduleChanges()
        let sessions = sessionTimes()
        processStarts = sessions
        let rotationSession =
            sessions.count > 1 && r.chance(config.tokenRotationRate) ? r.int(1...(sessions.count - 1)) : -1
        for (i, start) in sessions.enumerated() {
            advance(to: start)
            var t = start
            if i == 0 {
                t = firstLaunch(at: start)
            } else {
                emit(t, .settings(state))
                if plan.platform == .android && plan.sdk >= 35 {
                    let previous = sessions[i - 1]
                    events[events.count - 1].forceStoppedBeforeStart = plan.forceStops.contains {
                        $0 > previous && $0 <= t
                    }
                }
                t += SimTime.msPerMinute
                reportLegacyToken(at: t)
                t = resubscribe(at: t)
            }
            if i == rotationSession {
                t += SimTime.msPerMinute
                registerToken(at: t, lag: Int64(r.exponential(mean: 6 * Double(SimTime.msPerHour))))
            }
            if let arm = plan.arm, config.arms[arm].variant == "first_screen", !answered {
                t = promptFlow(at: t + 2 * SimTime.msPerMinute, placement: "first_screen")
            }
            if plan.orderer && r.chance(0.3) { order(at: t + SimTime.msPerMinute * Int64(r.int(2...10))) }
        }
        advance(to: config.endMs)
    }

    // MARK: state

    private mutating func initialState() {
        state.importance = Array(repeating: nil, count: config.channels.count)
        if plan.existing {
            // answered long ago; Android channels existed already, and were blocked long ago
            for i in state.importance.indices { state.importance[i] = i == 0 ? 4 : 3 }
            if plan.platform == .android {
                for (i, channel) in config.channels.enumerated() where r.chance(channel.blockRate) {
                    if r.chance(0.2) { state.blockedGroup = channel.group } else { state.importance[i] = 0 }
                }
            }
            if plan.platform == .web {
                // granted and subscribed, blocked, or never answered (`default`)
                let u = r.unit()
                if u < config.web.existingGranted {
                    state.grant(platform: .web, sdk: 0)
                    state.subscription = .active
                } else if u < config.web.existingGranted + config.web.existingDenied {
                    state.deny(platform: .web, sdk: 0)
                }
            } else if r.chance(plan.platform == .ios ? config.existingIOSOptIn : config.existingAndroidOptIn) {
                state.grant(platform: plan.platform, sdk: plan.sdk)
            } else {
                state.deny(platform: plan.platform, sdk: plan.sdk)
            }
            if plan.platform == .ios && state.authorization == .authorized && r.chance(0.03) { state.hideEverywhere() }
            answered = true
        } else if plan.platform == .android {
            // below API 33 notifications are on by default; from 33 a new install starts denied
            if plan.sdk < 33 {
                state.grant(platform: .android, sdk: plan.sdk)
            } else {
                state.deny(platform: .android, sdk: plan.sdk)
            }
            answered = plan.sdk < 33
        }
        changes.append((.min, state))
    }

    private mutating func scheduleChanges() {
        if plan.platform == .web {
            var day = SimTime.day(plan.firstSeen)
            while day < SimTime.day(horizon - 1) + 1 {
                let at = max(plan.firstSeen + SimTime.msPerHour, day * SimTime.msPerDay + r.below(SimTime.msPerDay))
                if r.chance(config.web.subscriptionExpiryDailyChance) {
                    scheduled.append((at, .subscriptionExpired(resubscribes: r.chance(config.web.resubscribeShare))))
                }
                if r.chance(config.web.revokeDailyChance) {
                    scheduled.append((at, r.chance(config.web.resetShareOfRevocations) ? .resetPermission : .revoke))
                }
                day += 1
            }
            scheduled.sort { $0.at < $1.at }
        }
        guard plan.platform == .android else { return }
        // new installs block channels in their first days (existing ones did long ago: `initialState`)
        for (i, channel) in config.channels.enumerated() where !plan.existing && r.chance(channel.blockRate) {
            let at = plan.firstSeen + 12 * SimTime.msPerHour + r.below(10 * SimTime.msPerDay)
            scheduled.append((at, r.chance(0.2) ? .blockGroup(channel.group) : .blockChannel(i)))
        }
        // injected changes draw from their own stream so the rest of the fleet stays identical
        var injected = SimRandom(seed: UInt64(plan.index) &+ config.seed &* 31, stream: 5)
        for case .channelBlockSpike(let day, let share) in config.injections {
            guard let promotions = config.channels.firstIndex(where: { $0.id == "promotions" }) else { continue }
            if injected.chance(share) {
                let at = config.startMs + Int64(day) * SimTime.msPerDay + injected.below(SimTime.msPerDay)
                scheduled.append((at, .blockChannel(promotions)))
            }
        }
        scheduled.sort { $0.at < $1.at }
    }

    /// Applies scheduled changes up to `t`, keeping `changes` in time order.
    private mutating func advance(to t: Int64) {
        while let next = scheduled.first, next.at <= t {
            scheduled.removeFirst()
            var s = state
            switch next.change {
            case .revoke:
                if plan.platform == .ios, s.authorization == .authorized || s.authorization == .provisional {
                    s.authorization = .denied
                } else if plan.platform == .android || s.authorization == .authorized {
                    s.deny(platform: plan.platform, sdk: plan.sdk)
                }
            case .resetPermission: if s.authorization == .authorized { s.resetPermission() }
            case .subscriptionExpired(let again):
                if s.subscription == .active {
                    s.subscription = .expired
                    resubscribes = again
                }
            case .blockChannel(let i): if s.importance[i] != nil { s.importance[i] = 0 }
            case .blockGroup(let group): s.blockedGroup = group
            }
            setState(s, at: max(next.at, now))
        }
        now = max(now, t)
    }

    private mutating func setState(_ s: DeviceSettings, at t: Int64) {
        guard s != state else { return }
        if state.subscription == .active && s.subscription != .active, let endpoint = tokens.last?.token {
            // an expiry is the push service's own; a revoked permission it learns when the browser
            // next tells it, meanwhile accepting pushes the browser drops
            let told = s.subscription == .expired ? 0 : Int64(r.exponential(mean: Double(SimTime.msPerDay)))
            subscriptionEnds[endpoint] = t + told
        }
        state = s
        changes.append((t, s))
    }

    /// A change the app itself caused (prompt answer, channel creation) at `t`.
    private mutating func change(at t: Int64, _ body: (inout DeviceSettings) -> Void) {
        advance(to: t)
        var s = state
        body(&s)
        setState(s, at: max(t, now))
    }

    // MARK: journey

    private mutating func sessionTimes() -> [Int64] {
        var times: [Int64] = [plan.firstSeen]
        var day = SimTime.day(plan.firstSeen)
        while day < SimTime.day(horizon - 1) + 1 {
            for _ in 0..<r.poisson(mean: plan.sessionsPerDay) {
                let local = Int64(7 + r.below(16)) * SimTime.msPerHour + r.below(SimTime.msPerHour)
                times.append(day * SimTime.msPerDay + local - plan.timeZoneHours * SimTime.msPerHour)
            }
            day += 1
        }
        // a device that is off or out of reach is not used either (the first session is the install)
        let sorted = times.filter { t in
            t >= plan.firstSeen && t < horizon - SimTime.msPerHour
                && (t == plan.firstSeen || plan.onlineTime(t).period == nil)
        }.sorted()
        var kept: [Int64] = []
        for t in sorted where kept.last.map({ t - $0 >= 30 * SimTime.msPerMinute }) ?? true { kept.append(t) }
        return kept
    }

    private mutating func emit(_ t: Int64, _ payload: SimPayload) { events.append(SimEvent(at: t, payload: payload)) }

    /// First launch: snapshot, experiment exposure, push token. Returns the time reached.
    private mutating func firstLaunch(at t0: Int64) -> Int64 {
        var t = t0
        if !plan.existing {
            // channels are created at first launch; the rest at the first order
            change(at: t) { s in
                s.importance[0] = 4
                if s.importance.count > 1 { s.importance[1] = 3 }
            }
        }
        emit(t, .settings(state))
        if plan.platform == .android && plan.sdk >= 35 { events[events.count - 1].forceStoppedBeforeStart = false }
        if let arm = plan.arm {
            t += SimTime.msPerMinute
            emit(t, .exposure(variant: config.arms[arm].variant))
        }
        t += SimTime.msPerMinute
        // a browser has an endpoint only once subscribed, after the user granted
        if plan.platform == .web && state.subscription != .active { return t }
        if plan.existing && r.chance(0.3) {
            // the sender has had this token for long; this SDK reports it only at the next start,
            // so until then sends that name only the token cannot be resolved
            tokens.append((TokenFactory.make(for: plan, &r), .max, .min))
            legacyTokenPending = true
        } else {
            registerToken(at: t, lag: plan.existing ? .min : SimTime.msPerMinute * Int64(r.int(1...10)))
        }
        return t
    }

    private mutating func registerToken(at t: Int64, lag: Int64) {
        let token = TokenFactory.make(for: plan, &r)
        emit(t, .token(token))
        tokens.append((token, t, lag == .min ? .min : t + lag))
    }

    /// Web: the service worker replaces an expired subscription at a visit (a new endpoint).
    private mutating func resubscribe(at t: Int64) -> Int64 {
        guard resubscribes, state.subscription == .expired, state.authorization == .authorized else { return t }
        resubscribes = false
        change(at: t) { $0.subscription = .active }
        registerToken(at: t + SimTime.msPerMinute, lag: SimTime.msPerMinute * Int64(r.int(1...10)))
        return t + SimTime.msPerMinute
    }

    /// Reports the legacy token at a later start (see `firstLaunch`).
    private mutating func reportLegacyToken(at t: Int64) {
        guard legacyTokenPending, let legacy = tokens.first else { return }
        legacyTokenPending = false
        emit(t, .token(legacy.token))
        tokens[0].registeredAt = t
    }

    private mutating func order(at t: Int64) {
        guard t < horizon - SimTime.msPerHour else { return }
        if orders.isEmpty && config.channels.count > 2 {
            change(at: t) { s in for i in 2..<s.importance.count where s.importance[i] == nil { s.importance[i] = 3 } }
        }
        orders.append(t)
        guard let arm = plan.arm, config.arms[arm].variant == "after_first_order" else { return }
        if !answered {
            _ = promptFlow(at: t + SimTime.msPerMinute, placement: "after_first_order")
        } else if plan.platform == .ios && r.chance(0.5) {
            // the app asks again; the OS shows nothing
            emit(
                t + SimTime.msPerMinute,
                .prompt(placement: "after_first_order", kind: .system, result: .alreadyDetermined))
        }
    }

    /// Optional primer, then the system dialog; returns the time reached.
    private mutating func promptFlow(at t0: Int64, placement: String) -> Int64 {
        var t = t0
        if r.chance(0.3) {
            let proceed = r.chance(0.85)
            emit(t, .prompt(placement: placement, kind: .primer, result: proceed ? .granted : .dismissed))
            t += SimTime.msPerMinute
            if !proceed { return t }
        }
        guard let arm = plan.arm else { return t }
        let optIn = config.arms[arm].optIn(plan.platform)
        let result: PromptResult
        let u = r.unit()
        let second = systemPromptsShown > 0
        switch plan.platform {
        case .ios:
            let provisional = config.iosProvisionalShare
            result = u < provisional ? .provisional : u < provisional + optIn * (1 - provisional) ? .granted : .denied
        case .android:
            result = u < (second ? 0.35 : optIn) ? .granted : (second || r.chance(0.7)) ? .denied : .dismissed
        case .web:
            // a closed or ignored prompt leaves the permission `default`: the site may ask again
            result = u < (second ? optIn / 2 : optIn) ? .granted : r.chance(0.5) ? .denied : .dismissed
        }
        answered = result != .dismissed
        systemPromptsShown += 1
        emit(t, .prompt(placement: placement, kind: .system, result: result))
        let (platform, sdk) = (plan.platform, plan.sdk)
        change(at: t) { s in
            switch result {
            case .granted:
                s.grant(platform: platform, sdk: sdk)
                // the web SDK subscribes as soon as the user granted
                if platform == .web { s.subscription = .active }
            case .provisional: s.makeProvisional()
            case .dismissed where platform == .web: break
            default: s.deny(platform: platform, sdk: sdk)
            }
        }
        if platform == .ios && result == .granted && r.chance(0.03) { change(at: t) { $0.hideEverywhere() } }
        if result == .granted || result == .provisional, r.chance(config.revocationRate) {
            let at = t + SimTime.msPerDay + r.below(6 * SimTime.msPerDay)
            let reset = platform == .web && r.chance(config.web.resetShareOfRevocations)
            scheduled.append((at, reset ? .resetPermission : .revoke))
            scheduled.sort { $0.at < $1.at }
        }
        t += SimTime.msPerMinute
        emit(t, .settings(state))
        if platform == .web && result == .granted {
            t += SimTime.msPerMinute
            registerToken(at: t, lag: SimTime.msPerMinute * Int64(r.int(1...10)))
        }
        return t
    }
}

/// Push tokens shaped like the real ones: APNs 64 hex characters, FCM ~150 printable ASCII, Web Push
/// an endpoint URL.
enum TokenFactory {
    private static let hex = Array("0123456789abcdef")
    private static let fcmAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    static func make(for plan: InstallationPlan, _ r: inout SimRandom) -> String {
        switch plan.provider {
        case .apns: return String((0..<64).map { _ in hex[Int(r.below(16))] })
        case .fcm:
            let head = String((0..<22).map { _ in fcmAlphabet[Int(r.below(64))] })
            let tail = String((0..<134).map { _ in fcmAlphabet[Int(r.below(64))] })
            return head + ":APA91b" + tail
        case .webpush:
            guard let web = plan.web else { preconditionFailure("a web installation has its browser") }
            return web.endpoint(&r)
        }
    }
}
