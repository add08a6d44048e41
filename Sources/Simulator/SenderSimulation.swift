import PushLedgerRules

/// The push sender's side for one installation: what it sent on each channel, what APNs/FCM
/// answered, and — where the device could show it — the receipts and opens the app reported.
struct SenderSimulation {
    let plan: InstallationPlan
    let config: SimulationConfig
    var r: SimRandom
    /// Receipts and opens draw from their own stream, so a change to one send (a retry in a
    /// throttle burst) does not reshuffle what happened to earlier ones.
    var device: SimRandom
    var sends: [SimSend] = []
    /// Receipts, opens and the foreground snapshots after opens (intended times).
    var events: [SimEvent] = []

    private struct Intent {
        var at: Int64
        var channel: Int
        var campaign: String
        var priority: Int
    }

    init(plan: InstallationPlan, config: SimulationConfig, random: SimRandom) {
        var random = random
        self.plan = plan
        self.config = config
        r = random
        device = SimRandom(seed: random.next(), stream: 6)
    }

    mutating func run(timeline: InstallationTimeline) {
        let intents = makeIntents(orders: timeline.orders)
        var abandoned = Set<String>()
        var deliveries: [(send: Int, at: Int64, period: Int?)] = []
        for intent in intents {
            // the sender uses the newest token it knows and has not dropped
            guard let token = timeline.tokens.last(where: { $0.knownAt <= intent.at && !abandoned.contains($0.token) }) else { continue }
            let notification = r.uuid()
            var sentAt = SimGrid.sendTime(near: intent.at, &r)
            for attempt in 0..<3 {
                let (status, reason, unregisteredAt) = answer(token: token.token, at: sentAt, tokens: timeline.tokens)
                sends.append(SimSend(
                    eventID: r.uuid(), notificationID: notification, installation: plan.index,
                    installationID: knowsInstallation(at: sentAt) ? plan.id : nil, provider: plan.provider, token: token.token,
                    channel: intent.channel, campaign: intent.campaign, sentAt: sentAt, status: status, reason: reason,
                    unregisteredAt: unregisteredAt, priority: intent.priority, latencyMs: 15 + Int(r.below(120))))
                if status == 200 {
                    let delivered = plan.onlineTime(sentAt + 2_000 + r.below(18_000))
                    deliveries.append((sends.count - 1, delivered.time, delivered.period))
                    break
                }
                if RejectionClass.isTokenInvalid(status: status, reason: reason) {
                    // most senders drop a token APNs/FCM called invalid; some keep trying it
                    if r.chance(0.7) { abandoned.insert(token.token) }
                    break
                }
                let transient = status == 0 || status == 429 || status >= 500
                if !transient || attempt == 2 { break }
                sentAt += 1_000 + r.below(1_000)
            }
        }
        deliver(deliveries, timeline: timeline)
    }

    // MARK: what was sent

    private mutating func makeIntents(orders: [Int64]) -> [Intent] {
        var intents: [Intent] = []
        let channels = config.channels
        let channel = { (id: String) in channels.firstIndex { $0.id == id } }
        if let promotions = channel("promotions") {
            for day in 0..<config.simulatedDays {
                for hour: Int64 in [10, 17] where r.chance(0.55) {
                    let at = config.simulatedStartMs + Int64(day) * SimTime.msPerDay + hour * SimTime.msPerHour + r.below(40 * SimTime.msPerMinute)
                    intents.append(Intent(at: at, channel: promotions, campaign: hour == 10 ? "daily_deals" : "evening_offer", priority: 5))
                }
            }
        }
        for order in orders {
            if let orders = channel("orders") {
                var t = order + SimTime.msPerMinute * Int64(r.int(1...3))
                intents.append(Intent(at: t, channel: orders, campaign: "order_confirmed", priority: 10))
                t += SimTime.msPerMinute * Int64(r.int(30...90))
                intents.append(Intent(at: t, channel: orders, campaign: "order_out_for_delivery", priority: 10))
                t += SimTime.msPerMinute * Int64(r.int(60...150))
                intents.append(Intent(at: t, channel: orders, campaign: "order_delivered", priority: 10))
            }
            if let chat = channel("chat"), r.chance(0.35) {
                for _ in 0..<r.int(1...3) {
                    let at = order + SimTime.msPerMinute * Int64(r.int(5...240))
                    intents.append(Intent(at: at, channel: chat, campaign: "support_reply", priority: 10))
                }
            }
        }
        return intents.filter { $0.at < config.endMs - SimTime.msPerMinute }.sorted { $0.at < $1.at }
    }

    private func knowsInstallation(at t: Int64) -> Bool {
        !plan.tokenOnly && t >= plan.firstSeen + 10 * SimTime.msPerMinute
    }

    /// What APNs/FCM answers for one attempt.
    private mutating func answer(token: String, at t: Int64, tokens: [(token: String, registeredAt: Int64, knownAt: Int64)]) -> (Int, String?, Int64?) {
        let apns = plan.provider == .apns
        // a token stops working an hour after uninstall, or after the app registered a newer one
        var deadSince: Int64?
        if let u = plan.uninstallAt { deadSince = u }
        if let i = tokens.firstIndex(where: { $0.token == token }), i + 1 < tokens.count {
            deadSince = min(deadSince ?? .max, tokens[i + 1].registeredAt)
        }
        if let dead = deadSince, t >= dead + SimTime.msPerHour {
            return apns ? (410, "Unregistered", dead + 30 * SimTime.msPerMinute) : (404, "UNREGISTERED", nil)
        }
        switch plan.tokenFault {
        case .sandbox: return (400, "BadDeviceToken", nil)
        case .wrongTopic: return (400, "DeviceTokenNotForTopic", nil)
        case .none: break
        }
        if apns && r.chance(burstProbability(at: t)) { return (429, "TooManyRequests", nil) }
        let u = r.unit()
        switch u {
        case ..<0.003: return apns ? (429, "TooManyRequests", nil) : (429, "QUOTA_EXCEEDED", nil)
        case ..<0.004: return apns ? (503, "ServiceUnavailable", nil) : (503, "UNAVAILABLE", nil)
        case ..<0.0045: return apns ? (500, "InternalServerError", nil) : (500, "INTERNAL", nil)
        case ..<0.005: return (0, nil, nil)
        default: return (200, nil, nil)
        }
    }

    private func burstProbability(at t: Int64) -> Double {
        var p = 0.0
        for case .apnsThrottleBurst(let day, let hour, let hours, let probability) in config.injections {
            let from = config.startMs + Int64(day) * SimTime.msPerDay + Int64(hour) * SimTime.msPerHour
            if t >= from && t < from + Int64(hours) * SimTime.msPerHour { p = max(p, probability) }
        }
        return p
    }

    // MARK: what the device reported

    private mutating func deliver(_ deliveries: [(send: Int, at: Int64, period: Int?)], timeline: InstallationTimeline) {
        // APNs keeps only the latest notification for an offline device
        var lastInPeriod: [Int: Int] = [:]
        if plan.platform == .ios {
            for (i, d) in deliveries.enumerated() { if let p = d.period { lastInPeriod[p] = i } }
        }
        let horizon = timeline.horizon
        for (i, d) in deliveries.enumerated() {
            if let p = d.period, plan.platform == .ios, lastInPeriod[p] != i { continue }
            let send = sends[d.send]
            let at = max(d.at, (SimTime.floorDiv(send.sentAt, SimTime.msPerMinute) + 1) * SimTime.msPerMinute)
            // before its first SDK session the app reported nothing
            guard at < horizon, at > plan.firstSeen else { continue }
            let settings = Self.settings(at: at, in: timeline.changes)
            let reports = reportsReceipts(at: at)
            if settings.shows(channel: send.channel, platform: plan.platform, channels: config.channels) {
                if reports { events.append(SimEvent(at: at, payload: .received(notification: send.notificationID, channel: send.channel, displayed: plan.platform == .android ? true : nil))) }
                let quiet = settings.authorization == .provisional ? 0.3 : 1.0
                guard device.chance(config.channels[send.channel].openRate * quiet) else { continue }
                let openAt = at + SimTime.msPerMinute + Int64(device.exponential(mean: 40 * Double(SimTime.msPerMinute)))
                guard openAt < horizon - 2 * SimTime.msPerMinute else { continue }
                let landing = device.weighted([0.9, 0.08, 0.02])
                events.append(SimEvent(at: openAt, payload: .opened(notification: send.notificationID, channel: send.channel, landed: [.target, .fallback, .rejected][landing])))
                // the tap brings the app to the foreground: a new snapshot
                events.append(SimEvent(at: openAt + SimTime.msPerMinute, payload: .settings(Self.settings(at: openAt, in: timeline.changes))))
            } else if reports && plan.platform == .android && device.chance(config.hiddenReceiptShare) {
                events.append(SimEvent(at: at, payload: .received(notification: send.notificationID, channel: send.channel, displayed: false)))
            }
        }
    }

    private func reportsReceipts(at t: Int64) -> Bool {
        let version = config.appVersions[plan.version(at: t)]
        guard config.receiptInstrumented.contains("\(plan.platform.rawValue)/\(version)") else { return false }
        for case .receiptsOutage(let day, let outageVersion) in config.injections
        where outageVersion == version && t >= config.startMs + Int64(day) * SimTime.msPerDay {
            return false
        }
        return true
    }

    static func settings(at t: Int64, in changes: [(at: Int64, settings: DeviceSettings)]) -> DeviceSettings {
        var lo = 0, hi = changes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if changes[mid].at <= t { lo = mid + 1 } else { hi = mid }
        }
        return changes[max(0, lo - 1)].settings
    }
}
