import PushLedgerContract
import PushLedgerRules

/// One telemetry event as the generator knows it (true time, before encoding).
enum SimPayload {
    case settings(DeviceSettings)
    case prompt(placement: String, kind: PromptKind, result: PromptResult)
    case exposure(variant: String)
    case token(String)
    case received(notification: SimUUID, channel: Int, displayed: Bool?)
    case opened(notification: SimUUID, channel: Int, landed: Landing)
    /// The user closed the displayed notification (web: the service worker's `notificationclose`).
    case dismissed(notification: SimUUID, channel: Int)
}

extension SimPayload {
    /// The notification a receipt is of and what it proves (metrics.md "Receipts"); a dismissal
    /// is a receipt of a displayed notification (contract v1.3). Nil for other events.
    var receipt: (notification: SimUUID, kind: Receipt.Kind)? {
        switch self {
        case .received(let id, _, let displayed): (id, .received(displayed: displayed))
        case .opened(let id, _, _): (id, .opened)
        case .dismissed(let id, _): (id, .received(displayed: true))
        default: nil
        }
    }
}

struct SimEvent {
    /// True time (ms); after normalisation, on the installation's own minute at second 5–25.
    var at: Int64
    var payload: SimPayload
    var id = SimUUID(hi: 0, lo: 0)
    /// Index into the configured app versions.
    var version = 0
    /// Keeps its true time instead of moving to the minute's grid (a receipt seconds after its
    /// send: see `SimGrid`).
    var pinned = false
    /// Android 15+, on the snapshot of a process start: whether the app was force-stopped before it.
    var forceStoppedBeforeStart: Bool? = nil
}

/// What became of an accepted send at the provider and on the device.
enum SendFate: Sendable {
    case delivered
    /// Replaced at the provider by a newer one (same collapse id, or APNs's one per app) while offline.
    case collapsed
    /// The provider discarded it: the device came back after its expiry.
    case expired
    /// FCM dropped it: the app was force-stopped and had not started again.
    case forceStopped
    /// The app was uninstalled.
    case inactive
    /// The device stayed offline past the end of the simulation.
    case pending
    /// Lost on the device with nothing reported (an OEM battery killer).
    case dropped
}

/// The kind of push a send is, as the sender reports it (contract v1.3).
struct SendKind: Hashable, Sendable {
    var pushType = "alert"
    var mutableContent: Bool? = nil
    var messageKind: MessageKind? = nil

    /// A plain alert, as a sender without v1.3's fields reports it.
    static let alert = SendKind()
}

/// One attempt the simulated sender made (a `/v1/sends` row).
struct SimSend {
    var eventID: SimUUID
    var notificationID: SimUUID
    var installation: Int
    /// nil when the sender knows only the token.
    var installationID: SimUUID?
    var provider: PushProvider
    var token: String
    var channel: Int
    var campaign: String
    var sentAt: Int64
    var status: Int
    var reason: String?
    var unregisteredAt: Int64?
    var priority: Int
    var latencyMs: Int
    /// v1.2: the collapse id and expiry the sender gave the provider.
    var collapseID: String? = nil
    var expiresAt: Int64? = nil
    /// v1.3: what the sender says it sent (``SimulationConfig/pushMix``).
    var kind = SendKind.alert
    /// Web Push: the `Urgency` header (its `TTL` is ``expiresAt``, its `Topic` ``collapseID``).
    var urgency: Urgency? = nil

    /// Whether it can confirm and is a notification (metrics.md "Which sends can confirm").
    var confirmability: Confirmability {
        Confirmability(
            provider: provider, pushType: kind.pushType, mutableContent: kind.mutableContent,
            messageKind: kind.messageKind)
    }
    /// nil until delivery is decided, and for rejected attempts.
    var fate: SendFate? = nil
}

/// Scheduled changes the user makes in system settings (the app sees them at next foreground).
enum SettingsChange {
    case revoke
    /// Web: the site's permission reset to "ask" (`default`).
    case resetPermission
    /// Web: the push subscription expired; whether the service worker replaces it at the next visit.
    case subscriptionExpired(resubscribes: Bool)
    case blockChannel(Int)
    case blockGroup(String)
}

/// Time layout that keeps the truth exact although the server stamps its own receive time
/// (see `Simulation` docs): telemetry at seconds 5–25 of a minute, sends at 40–50, a receipt
/// that came within seconds 1–3 s after its send (pinned, seconds 41–53), expiries at second 58.
enum SimGrid {
    /// An expiry `minutes` after the send's minute, at second 58: after every event of that
    /// minute however the posting delay moves it, before the next minute's.
    static func expiry(sentAt: Int64, minutes: Int64) -> Int64 {
        SimTime.floorDiv(sentAt, SimTime.msPerMinute) * SimTime.msPerMinute + minutes * SimTime.msPerMinute + 58_000
    }
    /// A Web Push `TTL` in whole seconds whose expiry falls `minutes` after the send's minute, at
    /// second 58 (plus the send's milliseconds: a TTL counts from `sent_at`).
    static func ttlSeconds(sentAt: Int64, minutes: Int64) -> Int64 {
        (expiry(sentAt: sentAt, minutes: minutes) - sentAt + 999) / 1_000
    }
    static func telemetryTime(minute: Int64, _ r: inout SimRandom) -> Int64 {
        minute * SimTime.msPerMinute + 5_000 + r.below(20_000)
    }
    static func sendTime(near t: Int64, _ r: inout SimRandom) -> Int64 {
        SimTime.floorDiv(t, SimTime.msPerMinute) * SimTime.msPerMinute + 40_000 + r.below(5_000)
    }
}
