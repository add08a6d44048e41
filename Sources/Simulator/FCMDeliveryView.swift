import Foundation
import PushLedgerSupport

/// What FCM's Aggregated Delivery Data would say about the simulated fleet's FCM sends, per
/// America/Los_Angeles day and campaign (its analytics label), from each accepted message's fate:
/// replaced by a newer one with its collapse key while the device was offline (collapsed), its
/// app force-stopped (dropped, app force-stopped) or uninstalled (dropped, device inactive), its
/// time to live over before the device came back (dropped, TTL expired), the device offline past
/// the end of the simulation (pending); delivered otherwise, lost on the device or not.
/// FCM does not know whether the OS then showed the notification: that is the gap the provider
/// cross-check measures.
public struct FCMDeliveryView: Sendable, Equatable {
    struct Counts: Sendable, Equatable {
        var accepted = 0, delivered = 0, pending = 0, inactive = 0, collapsed = 0, forceStopped = 0, expired = 0
    }

    static let timeZone = TimeZone(identifier: "America/Los_Angeles")!
    /// The Firebase app id the simulator's file carries unless told otherwise.
    public static let simulatedAppID = "1:123456789012:android:5e1a0c0ffee0"
    private(set) var days: [CivilDate: [String: Counts]] = [:]

    public init() {}

    mutating func add(_ installation: GeneratedInstallation) {
        for send in installation.sends where send.provider == .fcm && send.status == 200 {
            let day = CivilDate(Date(timeIntervalSince1970: Double(send.sentAt) / 1_000), in: Self.timeZone)
            var counts = days[day]?[send.campaign] ?? Counts()
            counts.accepted += 1
            switch send.fate ?? .delivered {
            case .inactive: counts.inactive += 1
            case .pending: counts.pending += 1
            case .collapsed: counts.collapsed += 1
            case .forceStopped: counts.forceStopped += 1
            case .expired: counts.expired += 1
            case .delivered, .dropped: counts.delivered += 1
            }
            days[day, default: [:]][send.campaign] = counts
        }
    }

    /// One `projects.androidApps.deliveryData.list` answer page holding every day and label.
    public func dataAPIPage(fcmAppID: String) -> [UInt8] {
        func pct(_ n: Int, _ of: Int) -> JSONValue { .double((Double(n) * 1_000 / Double(of)).rounded() / 10) }
        var entries: [JSONValue] = []
        for day in days.keys.sorted() {
            for (label, c) in days[day]!.sorted(by: { $0.key < $1.key }) {
                var outcomes = JSONObject([
                    ("delivered", pct(c.delivered, c.accepted)), ("pending", pct(c.pending, c.accepted)),
                ])
                for (name, n) in [
                    ("collapsed", c.collapsed), ("droppedAppForceStopped", c.forceStopped),
                    ("droppedDeviceInactive", c.inactive), ("droppedTtlExpired", c.expired),
                ] where n > 0 {
                    outcomes.append(name, pct(n, c.accepted))
                }
                entries.append(
                    .object(
                        JSONObject([
                            ("appId", .string(fcmAppID)),
                            (
                                "date",
                                .object(
                                    JSONObject([
                                        ("year", .int(day.year)), ("month", .int(day.month)), ("day", .int(day.day)),
                                    ]))
                            ),
                            ("analyticsLabel", .string(label)),
                            (
                                "data",
                                .object(
                                    JSONObject([
                                        ("countMessagesAccepted", .string(String(c.accepted))),
                                        ("countNotificationsAccepted", .string(String(c.accepted))),
                                        ("messageOutcomePercents", .object(outcomes)),
                                    ]))
                            ),
                        ])))
            }
        }
        var w = JSONWriter(pretty: true)
        w.value(.object(JSONObject([("androidDeliveryData", .array(entries))])))
        return w.bytes + [0x0A]
    }
}
