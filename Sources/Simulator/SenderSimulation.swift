import PushLedgerContract
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
    /// How fast, and whether, accepted sends arrive (v1.2 causes): a stream of its own as well.
    var arrival: SimRandom
    var sends: [SimSend] = []
    /// Receipts, opens and the foreground snapshots after opens (intended times).
    var events: [SimEvent] = []

    private struct Intent {
        var at: Int64
        var channel: Int
        var campaign: String
        var priority: Int
        var collapseID: String? = nil
        var expiryMinutes: Int64? = nil
        var kind = SendKind.alert
        var urgency: Urgency? = nil
    }

    private struct Delivery {
        var send: Int
        /// When the device could have it (its arrival, or when it came back online).
        var at: Int64
        /// The offline period it waited out, if any.
        var period: Int?
        /// Arrived within seconds: its receipt keeps its true time.
        var instant: Bool
    }

    init(plan: InstallationPlan, config: SimulationConfig, random: SimRandom) {
        var random = random
        self.plan = plan
        self.config = config
        r = random
        device = SimRandom(seed: random.next(), stream: 6)
        arrival = SimRandom(seed: random.next(), stream: 8)
    }

    mutating func run(timeline: InstallationTimeline) {
        let intents = makeIntents(orders: timeline.orders)
        var abandoned = Set<String>()
        var deliveries: [Delivery] = []
        for intent in intents {
            // the sender uses the newest token it knows and has not dropped
            guard let token = timeline.tokens.last(where: { $0.knownAt <= intent.at && !abandoned.contains($0.token) })
            else { continue }
            let notification = r.uuid()
            var sentAt = SimGrid.sendTime(near: intent.at, &r)
            for attempt in 0..<3 {
                let (status, reason, unregisteredAt) = answer(token: token.token, at: sentAt, timeline: timeline)
                // a Web Push TTL counts in whole seconds from the send
                let expiresAt = intent.expiryMinutes.map {
                    plan.provider == .webpush
                        ? sentAt + SimGrid.ttlSeconds(sentAt: sentAt, minutes: $0) * 1_000
                        : SimGrid.expiry(sentAt: sentAt, minutes: $0)
                }
                sends.append(
                    SimSend(
                        eventID: r.uuid(), notificationID: notification, installation: plan.index,
                        installationID: knowsInstallation(at: sentAt) ? plan.id : nil, provider: plan.provider,
                        token: token.token,
                        channel: intent.channel, campaign: intent.campaign, sentAt: sentAt, status: status,
                        reason: reason,
                        unregisteredAt: unregisteredAt, priority: intent.priority, latencyMs: 15 + Int(r.below(120)),
                        collapseID: intent.collapseID, expiresAt: expiresAt, kind: intent.kind, urgency: intent.urgency)
                )
                if (200...299).contains(status) {
                    var ready = sentAt + 2_000 + r.below(18_000)
                    var instant = arrival.chance(config.instantDeliveryShare)
                    if instant { ready = sentAt + 1_000 + arrival.below(2_000) }
                    if intent.priority < 10 && plan.defersNormalPriority {
                        // Doze, a rare standby bucket or Low Power Mode hold normal-priority pushes back
                        ready += Int64(arrival.exponential(mean: 30 * Double(SimTime.msPerMinute)))
                        instant = false
                    }
                    let delivered = plan.onlineTime(ready)
                    deliveries.append(
                        Delivery(
                            send: sends.count - 1, at: delivered.time, period: delivered.period,
                            instant: instant && delivered.period == nil))
                    break
                }
                if RejectionClass.isTokenInvalid(provider: plan.provider, status: status, reason: reason) {
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
                    let at =
                        config.simulatedStartMs + Int64(day) * SimTime.msPerDay + hour * SimTime.msPerHour
                        + r.below(40 * SimTime.msPerMinute)
                    // an offer is worth nothing hours later: the sender says so
                    let expiry = arrival.chance(config.expiringShare) ? config.promotionExpiryMinutes : nil
                    intents.append(
                        Intent(
                            at: at, channel: promotions, campaign: hour == 10 ? "daily_deals" : "evening_offer",
                            priority: 5,
                            expiryMinutes: expiry))
                }
            }
        }
        for (k, order) in orders.enumerated() {
            if let orders = channel("orders") {
                // the order's updates replace one another at the provider when they share a collapse id
                let collapse = arrival.chance(config.collapseShare) ? "order-\(k)" : nil
                var t = order + SimTime.msPerMinute * Int64(r.int(1...3))
                intents.append(
                    Intent(at: t, channel: orders, campaign: "order_confirmed", priority: 10, collapseID: collapse))
                t += SimTime.msPerMinute * Int64(r.int(30...90))
                intents.append(
                    Intent(
                        at: t, channel: orders, campaign: "order_out_for_delivery", priority: 10, collapseID: collapse))
                t += SimTime.msPerMinute * Int64(r.int(60...150))
                intents.append(
                    Intent(at: t, channel: orders, campaign: "order_delivered", priority: 10, collapseID: collapse))
            }
            if let chat = channel("chat"), r.chance(0.35) {
                for _ in 0..<r.int(1...3) {
                    let at = order + SimTime.msPerMinute * Int64(r.int(5...240))
                    intents.append(Intent(at: at, channel: chat, campaign: "support_reply", priority: 10))
                }
            }
        }
        if config.pushMix && plan.provider != .webpush { mixKinds(&intents) }
        if plan.provider == .webpush { webHeaders(&intents) }
        return intents.filter { $0.at < config.endMs - SimTime.msPerMinute }.sorted { $0.at < $1.at }
    }

    /// ``SimulationConfig/pushMix``: what kind each push is, and an iOS app's background
    /// refreshes. Drawn from a stream of the installation's own, so the other streams are as
    /// without the mix.
    private func mixKinds(_ intents: inout [Intent]) {
        var kinds = SimRandom(seed: plan.id.hi ^ plan.id.lo, stream: 9)
        let promotions = config.channels.firstIndex { $0.id == "promotions" }
        for i in intents.indices {
            let promotion = intents[i].channel == promotions
            if plan.provider == .apns {
                // the order and chat service ships a Notification Service Extension's payloads; the
                // marketing tool mostly does not set mutable-content
                let mutable = !promotion || kinds.chance(0.3)
                intents[i].kind = SendKind(mutableContent: mutable)
            } else {
                // the app posts order and chat notifications itself (data messages); campaigns
                // are mostly notification messages the tray shows
                let campaignKinds: [MessageKind] = [.notification, .hybrid, .data]
                let kind = promotion ? campaignKinds[kinds.weighted([0.6, 0.2, 0.2])] : .data
                intents[i].kind = SendKind(messageKind: kind)
            }
        }
        guard plan.provider == .apns else { return }
        let channel = config.channels.firstIndex { $0.id == "orders" } ?? 0
        for day in 0..<config.simulatedDays {
            for _ in 0..<kinds.poisson(mean: config.backgroundPushesPerDay) {
                let at = config.simulatedStartMs + Int64(day) * SimTime.msPerDay + kinds.below(SimTime.msPerDay)
                intents.append(
                    Intent(
                        at: at, channel: channel, campaign: "content_refresh", priority: 5,
                        kind: SendKind(pushType: "background")))
            }
        }
    }

    /// Web Push: every push carries a `TTL` (the protocol requires one): offers their expiry, the
    /// rest a day; order and chat updates go out with `Urgency: high`, offers `normal`, evening
    /// offers `low` or, as a digest that can wait, `very-low`. An order's `Topic` is its collapse id.
    private func webHeaders(_ intents: inout [Intent]) {
        var headers = SimRandom(seed: plan.id.hi ^ plan.id.lo, stream: 11)
        let promotions = config.channels.firstIndex { $0.id == "promotions" }
        for i in intents.indices {
            if intents[i].expiryMinutes == nil {
                intents[i].expiryMinutes =
                    intents[i].channel == promotions ? config.promotionExpiryMinutes : config.web.ttlMinutes
            }
            switch intents[i].campaign {
            case "daily_deals": intents[i].urgency = .normal
            case "evening_offer": intents[i].urgency = headers.chance(0.3) ? .veryLow : .low
            default: intents[i].urgency = .high
            }
        }
    }

    private func knowsInstallation(at t: Int64) -> Bool {
        !plan.tokenOnly && t >= plan.firstSeen + 10 * SimTime.msPerMinute
    }

    /// What APNs, FCM or the Web Push service answers for one attempt.
    private mutating func answer(token: String, at t: Int64, timeline: InstallationTimeline) -> (Int, String?, Int64?) {
        let apns = plan.provider == .apns
        let tokens = timeline.tokens
        // a token stops working an hour after uninstall, or after the app registered a newer one,
        // or (web) after its subscription ended
        var deadSince: Int64?
        if let u = plan.uninstallAt { deadSince = u }
        if let i = tokens.firstIndex(where: { $0.token == token }), i + 1 < tokens.count {
            deadSince = min(deadSince ?? .max, tokens[i + 1].registeredAt)
        }
        if let end = timeline.subscriptionEnds[token] { deadSince = min(deadSince ?? .max, end) }
        if let dead = deadSince, t >= dead + SimTime.msPerHour {
            if let web = plan.web { return (web.goneAnswer.status, web.goneAnswer.reason, nil) }
            return apns ? (410, "Unregistered", dead + 30 * SimTime.msPerMinute) : (404, "UNREGISTERED", nil)
        }
        switch plan.tokenFault {
        case .sandbox: return (400, "BadDeviceToken", nil)
        case .wrongTopic: return (400, "DeviceTokenNotForTopic", nil)
        case .none: break
        }
        if apns && r.chance(burstProbability(at: t)) { return (429, "TooManyRequests", nil) }
        let u = r.unit()
        let reasons: (throttled: String, unavailable: String, internal: String?) =
            switch plan.provider {
            case .apns: ("TooManyRequests", "ServiceUnavailable", "InternalServerError")
            case .fcm: ("QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL")
            case .webpush: ("Too Many Requests", "Service Unavailable", nil)
            }
        switch u {
        case ..<0.003: return (429, reasons.throttled, nil)
        case ..<0.004: return (503, reasons.unavailable, nil)
        case ..<0.0045: return (500, reasons.internal, nil)
        case ..<0.005: return (0, nil, nil)
        default: return (plan.provider == .webpush ? 201 : 200, nil, nil)
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

    private mutating func deliver(_ deliveries: [Delivery], timeline: InstallationTimeline) {
        // What a provider still holds when an offline device comes back: APNs the latest
        // notification per app, FCM the latest per collapse id (and every one without).
        var latest: [String: Int] = [:]
        for (i, d) in deliveries.enumerated() {
            guard let p = d.period else { continue }
            if plan.platform == .ios {
                latest["\(p)"] = i
            } else if let c = sends[d.send].collapseID {
                latest["\(p)|\(c)"] = i
            }
        }
        let horizon = timeline.horizon
        for (i, d) in deliveries.enumerated() {
            let send = sends[d.send]
            let fate: SendFate
            if d.at >= horizon {
                fate = plan.uninstallAt.map { d.at >= $0 } == true ? .inactive : .pending
            } else if let p = d.period,
                let last = latest[plan.platform == .ios ? "\(p)" : "\(p)|\(send.collapseID ?? "")"], last != i
            {
                fate = .collapsed
            } else if let expiry = send.expiresAt, d.at > expiry {
                fate = .expired
            } else if plan.platform == .android && plan.forceStopped(at: d.at, starts: timeline.processStarts) {
                fate = .forceStopped
            } else if arrival.chance(
                send.priority < 10 && plan.defersNormalPriority ? config.deferredLossShare : config.lossShare)
            {
                fate = .dropped
            } else {
                fate = .delivered
            }
            sends[d.send].fate = fate
            guard fate == .delivered else { continue }
            let nextMinute = (SimTime.floorDiv(send.sentAt, SimTime.msPerMinute) + 1) * SimTime.msPerMinute
            // a receipt within seconds keeps its time when no other send of the device is near
            // it (the time grid keeps comparisons with those exact)
            let pinned =
                d.instant
                && !sends.contains {
                    $0.notificationID != send.notificationID && abs($0.sentAt - send.sentAt) < 2 * SimTime.msPerMinute
                }
            let at = pinned ? d.at : max(d.at, nextMinute)
            // before its first SDK session the app reported nothing
            guard at < horizon, at > plan.firstSeen else { continue }
            let settings = Self.settings(at: at, in: timeline.changes)
            let reports = reportsReceipts(at: at)
            let confirmability = send.confirmability
            guard confirmability.isNotification else {
                // a background refresh reaches the app whatever its notification settings and
                // shows nothing; the app records it where its build does
                if reports && recordsBackgroundReceipts(at: at) {
                    var receipt = SimEvent(
                        at: at,
                        payload: .received(notification: send.notificationID, channel: send.channel, displayed: false))
                    receipt.pinned = pinned
                    events.append(receipt)
                }
                continue
            }
            // no app code runs for an alert without mutable content or a message the tray shows
            let records = reports && confirmability.canConfirm == .yes
            if settings.shows(channel: send.channel, platform: plan.platform, channels: config.channels) {
                if records {
                    // Android and the web's service worker say they showed it
                    var receipt = SimEvent(
                        at: at,
                        payload: .received(
                            notification: send.notificationID, channel: send.channel,
                            displayed: plan.platform == .ios ? nil : true))
                    receipt.pinned = pinned
                    events.append(receipt)
                }
                let quiet = settings.authorization == .provisional ? 0.3 : 1.0
                guard device.chance(config.channels[send.channel].openRate * quiet) else {
                    dismiss(send, shownAt: at, horizon: horizon)
                    continue
                }
                let openAt =
                    at + SimTime.msPerMinute + Int64(device.exponential(mean: 40 * Double(SimTime.msPerMinute)))
                guard openAt < horizon - 2 * SimTime.msPerMinute else { continue }
                let landing = device.weighted([0.9, 0.08, 0.02])
                events.append(
                    SimEvent(
                        at: openAt,
                        payload: .opened(
                            notification: send.notificationID, channel: send.channel,
                            landed: [.target, .fallback, .rejected][landing])))
                // the tap brings the app to the foreground: a new snapshot
                events.append(
                    SimEvent(
                        at: openAt + SimTime.msPerMinute,
                        payload: .settings(Self.settings(at: openAt, in: timeline.changes))))
            } else if records && plan.platform == .android && device.chance(config.hiddenReceiptShare) {
                var receipt = SimEvent(
                    at: at,
                    payload: .received(notification: send.notificationID, channel: send.channel, displayed: false))
                receipt.pinned = pinned
                events.append(receipt)
            }
        }
    }

    /// Web: the user closes a notification it did not click (`notificationclose`), minutes later.
    private mutating func dismiss(_ send: SimSend, shownAt at: Int64, horizon: Int64) {
        guard plan.platform == .web, device.chance(config.web.dismissShare) else { return }
        let dismissAt = at + SimTime.msPerMinute + Int64(device.exponential(mean: 20 * Double(SimTime.msPerMinute)))
        guard dismissAt < horizon - 2 * SimTime.msPerMinute, reportsReceipts(at: dismissAt) else { return }
        events.append(
            SimEvent(at: dismissAt, payload: .dismissed(notification: send.notificationID, channel: send.channel)))
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

    private func recordsBackgroundReceipts(at t: Int64) -> Bool {
        config.backgroundReceiptInstrumented.contains(
            "\(plan.platform.rawValue)/\(config.appVersions[plan.version(at: t)])")
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
