import PushLedgerContract

/// One telemetry event as the generator knows it (true time, before encoding).
enum SimPayload {
    case settings(DeviceSettings)
    case prompt(placement: String, kind: PromptKind, result: PromptResult)
    case exposure(variant: String)
    case token(String)
    case received(notification: SimUUID, channel: Int, displayed: Bool?)
    case opened(notification: SimUUID, channel: Int, landed: Landing)
}

struct SimEvent {
    /// True time (ms); after normalisation, on the installation's own minute at second 5–25.
    var at: Int64
    var payload: SimPayload
    var id = SimUUID(hi: 0, lo: 0)
    /// Index into the configured app versions.
    var version = 0
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
}

/// Scheduled changes the user makes in system settings (the app sees them at next foreground).
enum SettingsChange {
    case revoke
    case blockChannel(Int)
    case blockGroup(String)
}

/// Time layout that keeps the truth exact although the server stamps its own receive time
/// (see `Simulation` docs): telemetry at seconds 5–25 of a minute, sends at 40–50.
enum SimGrid {
    static func telemetryTime(minute: Int64, _ r: inout SimRandom) -> Int64 {
        minute * SimTime.msPerMinute + 5_000 + r.below(20_000)
    }
    static func sendTime(near t: Int64, _ r: inout SimRandom) -> Int64 {
        SimTime.floorDiv(t, SimTime.msPerMinute) * SimTime.msPerMinute + 40_000 + r.below(5_000)
    }
}
