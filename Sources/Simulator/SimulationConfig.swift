import Foundation
import PushLedgerContract

/// A named change to the fleet from a given day, to see whether reports and alerts notice it.
public enum Injection: Sendable, Equatable {
    /// From `day` (0-based), `share` more Android installations block the promotions channel.
    case channelBlockSpike(day: Int, share: Double)
    /// From `day`, app version `appVersion` stops reporting `notification_received` (opens go on).
    case receiptsOutage(day: Int, appVersion: String)
    /// On `day` from `hour` for `hours` hours (UTC), APNs answers 429 TooManyRequests with `probability`.
    case apnsThrottleBurst(day: Int, hour: Int, hours: Int, probability: Double)

    /// Parses `--inject NAME[@DAY]`, e.g. `channel-block-spike@7`; the day defaults to the middle.
    public static func parse(_ text: String, days: Int) throws(SimulationError) -> Injection {
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        var day = days / 2
        if parts.count == 2 {
            guard let d = Int(parts[1]), (0..<days).contains(d) else {
                throw SimulationError.invalidOption("--inject", "day must be 0..<\(days) in \(text)")
            }
            day = d
        }
        switch parts[0] {
        case "channel-block-spike": return .channelBlockSpike(day: day, share: 0.50)
        case "receipts-outage": return .receiptsOutage(day: day, appVersion: "5.2.0")
        case "apns-throttle-burst": return .apnsThrottleBurst(day: day, hour: 9, hours: 3, probability: 0.4)
        default:
            throw SimulationError.invalidOption(
                "--inject", "unknown scenario \(parts[0]) (channel-block-spike, receipts-outage, apns-throttle-burst)")
        }
    }
}

/// A simulator failure: a safe `description`, detail for logs.
public enum SimulationError: Error, CustomStringConvertible, Equatable {
    case invalidOption(String, String)
    case ingestFailed(endpoint: String, status: Int, body: String)

    public var description: String {
        switch self {
        case .invalidOption(let option, let why): "invalid \(option): \(why)"
        case .ingestFailed(let endpoint, let status, _): "ingest refused a batch on \(endpoint) (HTTP \(status))"
        }
    }

    public var detail: String {
        switch self {
        case .invalidOption: description
        case .ingestFailed(_, _, let body): "\(description): \(body)"
        }
    }
}

/// One notification channel of the simulated app.
public struct ChannelProfile: Sendable, Equatable {
    public var id: String
    /// Share of Android installations that block the channel some days after install.
    public var blockRate: Double
    /// Share of opens among displayed notifications.
    public var openRate: Double
    public var group: String
    public init(id: String, blockRate: Double, openRate: Double, group: String) {
        self.id = id
        self.blockRate = blockRate
        self.openRate = openRate
        self.group = group
    }
}

/// One arm of the prompt-timing experiment.
public struct ExperimentArm: Sendable, Equatable {
    public var variant: String
    public var share: Double
    /// Probability that the first system prompt is granted, per platform.
    public var iosOptIn: Double
    public var androidOptIn: Double
    /// On web: `Notification.requestPermission()` granted (the rest denied or closed unanswered).
    public var webOptIn: Double
    public init(variant: String, share: Double, iosOptIn: Double, androidOptIn: Double, webOptIn: Double = 0.3) {
        self.variant = variant
        self.share = share
        self.iosOptIn = iosOptIn
        self.androidOptIn = androidOptIn
        self.webOptIn = webOptIn
    }

    func optIn(_ platform: Platform) -> Double {
        switch platform {
        case .ios: iosOptIn
        case .android: androidOptIn
        case .web: webOptIn
        }
    }
}

/// Everything that shapes a simulated fortnight. Defaults follow published
/// industry figures (opt-in before Android 13: Android ~81%, iOS ~51%).
///
/// By default the SDK ships on the first day: a fleet that grows and settles through the
/// days (a launch). `makeSteady` gives a mature app's fleet whose reported days look alike.
public struct SimulationConfig: Sendable {
    public var appID = "com.example.shop"
    /// Installations over all simulated days (warm-up included): existing users and new installs.
    public var installs = 20_000
    /// Reported days: the truth, `--inject` days and the default report window cover these.
    public var days = 14
    /// Start of the first reported day (ms since the epoch, UTC midnight recommended).
    public var startMs: Int64
    /// Days simulated (and posted) before `startMs`, so the reported days start in a steady state.
    public var warmupDays = 0
    public var seed: UInt64 = 1
    /// Share of iOS among the app's phones (the installations that are not web).
    public var iosShare = 0.45
    /// Share of installations that are browsers (contract v1.3, platform `web`), shaped by ``web``.
    /// None by default: a fleet made without them keeps its figures.
    public var webShare = 0.0
    public var web = WebFleet()
    /// Users who had the app before the SDK shipped: first seen early in the simulated days,
    /// answered and blocked channels long ago, no experiment.
    public var existingUserShare = 0.30
    /// Mean delay from the first simulated day to an existing user's first SDK session.
    public var existingFirstSessionDays = 1.5
    public var existingIOSOptIn = 0.51
    public var existingAndroidOptIn = 0.81
    public var channels = [
        ChannelProfile(id: "orders", blockRate: 0.02, openRate: 0.30, group: "shop"),
        ChannelProfile(id: "promotions", blockRate: 0.12, openRate: 0.04, group: "marketing"),
        ChannelProfile(id: "chat", blockRate: 0.05, openRate: 0.45, group: "shop"),
    ]
    public var experiment = "push_prompt_timing"
    public var arms = [
        ExperimentArm(variant: "first_screen", share: 0.5, iosOptIn: 0.45, androidOptIn: 0.62),
        ExperimentArm(variant: "after_first_order", share: 0.5, iosOptIn: 0.63, androidOptIn: 0.80),
    ]
    /// Share of installations that ever order (after_first_order prompts only them).
    public var everOrderShare = 0.45
    public var iosProvisionalShare = 0.08
    /// Android API levels and weights; below 33 notifications need no runtime permission.
    public var androidSdkMix: [(sdk: Int, weight: Double)] = [
        (29, 0.07), (30, 0.10), (31, 0.08), (32, 0.07), (33, 0.18), (34, 0.32), (35, 0.18),
    ]
    /// Share of granted users who revoke 1–7 days later.
    public var revocationRate = 0.06
    /// App versions in rollout order; the last one rolls out from `rolloutDay`.
    public var appVersions = ["5.1.0", "5.2.0"]
    /// Counted from the first simulated day (warm-up included); negative: before it.
    public var rolloutDay = 3
    /// (platform, app version) pairs whose builds report `notification_received` (the web
    /// app's service worker always has).
    public var receiptInstrumented: Set<String> = [
        "android/5.1.0", "android/5.2.0", "ios/5.2.0", "web/5.1.0", "web/5.2.0",
    ]
    /// Contract v1.3's kinds of send (metrics.md "Which sends can confirm"): APNs alerts with and
    /// without mutable content, background refreshes, FCM notification, hybrid and data messages,
    /// each reported by the sender, and the device's receipts as each kind allows. Off by
    /// default: a fleet made without them keeps its figures (every send a plain alert).
    public var pushMix = false
    /// With ``pushMix``: (platform, app version) pairs whose builds record background pushes' receipts.
    public var backgroundReceiptInstrumented: Set<String> = ["ios/5.2.0"]
    /// With ``pushMix``: background refreshes a day to an iOS installation.
    public var backgroundPushesPerDay = 1.5
    public var offlineDailyChance = 0.08
    /// Chance per day that an installation is uninstalled (a steady outflow; ~6% over a fortnight).
    public var dailyUninstallRate = 0.0043
    public var tokenRotationRate = 0.04
    /// Share of installations whose sends carry no installation_id (the sender knows only the token).
    public var tokenOnlyShare = 0.20
    public var skewedDeviceShare = 0.05
    public var maxSkewHours = 12
    /// Share of batches posted twice (a retry after a lost response).
    public var duplicateBatchShare = 0.01
    public var sendsPerBatch = 500
    /// How many days of events an SDK queues before it flushes (fewer, larger telemetry requests).
    public var flushDays = 1
    /// Events per telemetry request at most; below 500, requests hold 1, 2, … up to this many in
    /// turn (a phone posting an app start, a receipt, an open as they happen).
    public var maxEventsPerRequest = 500
    /// Share of Android sends whose app code runs although nothing is shown (`displayed: false`).
    public var hiddenReceiptShare = 0.25
    /// v1.2 (why sends go unconfirmed): share of orders whose three updates carry one collapse id.
    public var collapseShare = 0.7
    /// Share of promotions sent with an expiry, and the expiry in minutes after the send.
    public var expiringShare = 0.8
    public var promotionExpiryMinutes: Int64 = 240
    /// Chance per day that an Android 15+ app is force-stopped (nothing delivered until it starts again).
    public var forceStopDailyChance = 0.04
    /// Share of Android installations under a background restriction.
    public var backgroundRestrictedShare = 0.08
    /// Share of deliveries that arrive within seconds (the rest within a minute or two, later when deferred or
    /// offline).
    public var instantDeliveryShare = 0.5
    /// Share of normal-priority pushes a deferring device (``InstallationPlan/defersNormalPriority``)
    /// loses without a trace, and of every other push.
    public var deferredLossShare = 0.05
    public var lossShare = 0.005
    public var injections: [Injection] = []

    public init(startMs: Int64) { self.startMs = startMs }

    /// A mature app's fleet, alike from one reported day to the next (what alerts compare): most
    /// installations existed long before (settled), new installs arrive and old ones leave at a
    /// steady pace, the current version rolled out two weeks before the simulated days, and
    /// `warmupDays` (at least 11: young installs block channels up to 10.5 days after install)
    /// are simulated first so that every transient has passed by the first reported day: the
    /// SDK's first sessions on existing devices, young installs' blocks, revocations and
    /// upgrades, tokens reported late.
    public mutating func makeSteady(warmupDays: Int = 14) {
        self.warmupDays = warmupDays
        existingUserShare = 0.85
        // their SDK has reported all along: every device is heard from on the first day
        existingFirstSessionDays = 0.25
        rolloutDay = -14
    }

    /// A fortnight (or `days`) ending at the UTC midnight at or before `now`, so every event
    /// is within the contract's 30-day age limit when posted.
    public static func endingBefore(nowMs: Int64, days: Int = 14) -> SimulationConfig {
        var config = SimulationConfig(startMs: (SimTime.day(nowMs) - Int64(days)) * SimTime.msPerDay)
        config.days = days
        return config
    }

    public var endMs: Int64 { startMs + Int64(days) * SimTime.msPerDay }

    /// Start of the first simulated day: `startMs` minus the warm-up.
    public var simulatedStartMs: Int64 { startMs - Int64(warmupDays) * SimTime.msPerDay }

    /// Simulated days, warm-up included.
    public var simulatedDays: Int { warmupDays + days }
}
