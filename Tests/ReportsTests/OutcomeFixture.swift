import Foundation
import Postgres
import PushLedgerRules

@testable import Reports

/// Sends that exercise every outcome rule of docs/metrics.md, each with the outcome the rules
/// give by hand. Window [Nov 9, Nov 12) 2026, as of Nov 11 12:00 (pending after Nov 10 12:00).
struct OutcomeFixture {
    struct Expected {
        var event: UUID
        var outcome: String
        var channel: String
        var platform: String
        var campaign: String?
        var provider: String
        var day: String
        var at: Date
        /// Of the installation's as-of snapshot; nil without one.
        var appVersion: String?
        var tokenInvalid = false
        var toInvalidToken = false
        var pushType: String? = nil
        var messageKind: String? = nil
    }

    static let from = Fixture.time(2026, 11, 9)
    static let to = Fixture.time(2026, 11, 12)
    static let asOf = Fixture.time(2026, 11, 11, 12)
    var fixture: Fixture
    var expected: [Expected] = []
    var notificationCount = 0
    /// app_version of each installation's snapshots (G has none).
    var snapshotVersions: [UUID: String] = [:]

    static func installation(_ n: Int) -> UUID { Fixture.id(0x1a, n) }

    /// `confirmability`: also the sends of contract v1.3 (push types, mutable content, message
    /// kinds) that "Which sends can confirm" judges; without them, what a v1.2 sender stores.
    init(into fixture: Fixture? = nil, confirmability: Bool = true) throws {
        self.fixture = try fixture ?? Fixture()
        try build()
        if confirmability { try buildConfirmability() }
    }

    private mutating func notification() -> UUID {
        notificationCount += 1
        return Fixture.id(0x40, notificationCount)
    }

    /// Adds one send and its expected outcome; returns (notification, event).
    @discardableResult
    private mutating func send(
        _ outcome: String, to installation: UUID?, platform: String, at: Date, channel: String = "orders",
        campaign: String? = "order_update", provider: String = "fcm", token: String = "tok", status: Int = 200,
        reason: String? = nil, notification: UUID? = nil, tokenInvalid: Bool = false, toInvalidToken: Bool = false,
        resolvedBy: String? = nil, pushType: String? = nil, mutableContent: Bool? = nil, messageKind: String? = nil
    ) throws -> UUID {
        let n = notification ?? self.notification()
        let event = try fixture.send(
            notification: n, installation: installation, at: at, provider: provider, token: token,
            channel: channel, campaign: campaign, status: status, reason: reason, resolvedBy: resolvedBy,
            pushType: pushType, mutableContent: mutableContent, messageKind: messageKind)
        expected.append(
            Expected(
                event: event, outcome: outcome, channel: channel, platform: platform, campaign: campaign,
                provider: provider, day: Display.day(at), at: at,
                appVersion: installation.flatMap { snapshotVersions[$0] }, tokenInvalid: tokenInvalid,
                toInvalidToken: toInvalidToken, pushType: pushType, messageKind: messageKind))
        return n
    }

    /// Which sends can confirm: sends that cannot (unconfirmable), a tap on one, a background push
    /// to a denied installation judged unconfirmed because its slice reports a background receipt
    /// on another day of the window (a day's rollups alone judge it unconfirmable), and data
    /// messages as before.
    private mutating func buildConfirmability() throws {
        let day = Fixture.time(2026, 11, 9, 1)
        func at(_ hours: Double) -> Date { day.addingTimeInterval(hours * 3600) }
        let (a, b, c, d, e) = (
            Self.installation(1), Self.installation(2), Self.installation(3), Self.installation(4),
            Self.installation(5)
        )
        // Their own token: the fixture's other sends make "tok" invalid on APNs.
        func send(
            _ outcome: String, to installation: UUID, platform: String, at: Date, channel: String = "orders",
            campaign: String? = "order_update", provider: String = "fcm", pushType: String? = nil,
            mutableContent: Bool? = nil, messageKind: String? = nil
        ) throws -> UUID {
            try self.send(
                outcome, to: installation, platform: platform, at: at, channel: channel, campaign: campaign,
                provider: provider, token: "tok-v13", pushType: pushType, mutableContent: mutableContent,
                messageKind: messageKind)
        }
        try send("unconfirmable", to: a, platform: "android", at: at(16), messageKind: "notification")
        try send("blocked_channel", to: a, platform: "android", at: at(16), channel: "news", messageKind: "hybrid")
        try send("blocked_app", to: b, platform: "android", at: at(16), messageKind: "notification")
        try send("unconfirmed", to: a, platform: "android", at: at(16), messageKind: "data")
        try send(
            "unconfirmable", to: c, platform: "ios", at: at(16), provider: "apns", pushType: "alert",
            mutableContent: false)
        let tapped = try send(
            "opened", to: c, platform: "ios", at: at(16.2), provider: "apns", pushType: "alert", mutableContent: false)
        try fixture.open(tapped, installation: c, at: at(16.5), platform: "ios", landed: "target")
        try send(
            "unconfirmed", to: c, platform: "ios", at: at(16.4), provider: "apns", pushType: "alert",
            mutableContent: true)
        try send("unconfirmed", to: e, platform: "ios", at: at(17), provider: "apns", pushType: "background")
        try send("unconfirmable", to: e, platform: "ios", at: at(17), provider: "apns", pushType: "location")
        let refresh = try send(
            "received", to: d, platform: "ios", at: Fixture.time(2026, 11, 10, 6), campaign: nil, provider: "apns",
            pushType: "background")
        try fixture.receipt(
            refresh, installation: d, at: Fixture.time(2026, 11, 10, 6, 5), platform: "ios", appVersion: "3.0",
            displayed: false)
    }

    private mutating func build() throws {
        let day = Fixture.time(2026, 11, 9, 1)
        func at(_ hours: Double) -> Date { day.addingTimeInterval(hours * 3600) }
        let (a, b, c, d, e, f, g) = (
            Self.installation(1), Self.installation(2), Self.installation(3), Self.installation(4),
            Self.installation(5), Self.installation(6), Self.installation(7)
        )
        let start = Fixture.time(2026, 11, 1)
        for (id, platform, version) in [
            (a, "android", "5.2.0"), (b, "android", "5.2.0"), (c, "ios", "3.0"), (d, "ios", "3.0"),
            (e, "ios", "3.0"), (f, "android", "9.9"), (g, "android", "5.2.0"),
        ] {
            try fixture.installation(id, platform: platform, firstSeen: start, appVersion: version)
            if id != g { snapshotVersions[id] = version }
        }
        // A: Android, can display; orders fine, promotions blocked, news in a blocked group.
        try fixture.snapshot(
            a, at: start, platform: "android", enabled: true,
            channels: [
                .init(id: "orders", importance: 3), .init(id: "promotions", importance: 0),
                .init(id: "news", importance: 4, groupBlocked: true),
            ])
        // B: Android, notifications off. F: Android 9.9, on (that version reports no receipts).
        try fixture.snapshot(b, at: start, platform: "android", enabled: false)
        try fixture.snapshot(f, at: start, platform: "android", appVersion: "9.9", enabled: true)
        // C: iOS authorized with alerts; later (after its sends) denied. D: provisional, no settings reported.
        // E: iOS denied. G: no snapshot at all.
        try fixture.snapshot(
            c, at: start, platform: "ios", appVersion: "3.0", authorization: "authorized", alert: "enabled")
        try fixture.snapshot(c, at: at(30), platform: "ios", appVersion: "3.0", authorization: "denied")
        try fixture.snapshot(d, at: start, platform: "ios", appVersion: "3.0", authorization: "provisional")
        try fixture.snapshot(
            e, at: start, platform: "ios", appVersion: "3.0", authorization: "denied", alert: "disabled")

        // Rule 1 and token hygiene: an FCM UNREGISTERED, then a send to that token without re-registration.
        try send(
            "rejected", to: a, platform: "android", at: at(1), token: "dead", status: 404, reason: "UNREGISTERED",
            tokenInvalid: true)
        try send("unconfirmed", to: a, platform: "android", at: at(2), token: "dead", toInvalidToken: true)
        // Re-registered after the invalidation: not known invalid any more.
        try fixture.tokenRegistration(a, token: "dead2", at: at(0))
        try send(
            "rejected", to: a, platform: "android", at: at(1), token: "dead2", status: 404, reason: "UNREGISTERED",
            tokenInvalid: true)
        try fixture.tokenRegistration(a, token: "dead2", at: at(1.5))
        try send("unconfirmed", to: a, platform: "android", at: at(2), token: "dead2")
        // A retry after 429 and the accepted attempt that was opened (rule 2), landing on the fallback screen.
        let opened = try send("rejected", to: a, platform: "android", at: at(3), status: 429, reason: "QUOTA_EXCEEDED")
        try send("opened", to: a, platform: "android", at: at(3.1), notification: opened)
        try fixture.open(opened, installation: a, at: at(4), platform: "android", landed: "fallback")
        // Rule 3: displayed receipts (true, and not reported) on iOS.
        let shown = try send("received", to: c, platform: "ios", at: at(5), provider: "apns")
        try fixture.receipt(shown, installation: c, at: at(5.1), platform: "ios", appVersion: "3.0", displayed: true)
        let quiet = try send("received", to: d, platform: "ios", at: at(5), campaign: nil, provider: "apns")
        try fixture.receipt(quiet, installation: d, at: at(5.1), platform: "ios", appVersion: "3.0")
        // Rule 2 over a stale snapshot: B says blocked, the open proves delivery.
        let stale = try send("opened", to: b, platform: "android", at: at(6))
        try fixture.open(stale, installation: b, at: at(6.5), platform: "android", landed: "target")
        // Rule 4: within the confirmation window, no receipt.
        try send("pending", to: a, platform: "android", at: Fixture.time(2026, 11, 11, 2))
        // ... but a displayed:false receipt decides it (rule 7: delivered, nothing showed it blocked).
        let undisplayed = try send("received", to: a, platform: "android", at: Fixture.time(2026, 11, 11, 3))
        try fixture.receipt(
            undisplayed, installation: a, at: Fixture.time(2026, 11, 11, 4), platform: "android", displayed: false)
        // Rule 5: app blocked (Android off, iOS denied); a displayed:false receipt does not override it.
        try send("blocked_app", to: b, platform: "android", at: at(7))
        let hidden = try send("blocked_app", to: b, platform: "android", at: at(7.5))
        try fixture.receipt(hidden, installation: b, at: at(8), platform: "android", displayed: false)
        try send("blocked_app", to: e, platform: "ios", at: at(7), provider: "apns")
        // Rule 6: channel importance 0, and a blocked group.
        try send(
            "blocked_channel", to: a, platform: "android", at: at(8), channel: "promotions", campaign: "black_friday")
        try send("blocked_channel", to: a, platform: "android", at: at(8), channel: "news", campaign: nil)
        // A channel absent from the snapshot is not known blocked: the app decides (rule 9 here).
        try send("unconfirmed", to: a, platform: "android", at: at(9), channel: "misc", campaign: nil)
        // C's send before its later "denied" snapshot: the as-of state at sent_at is authorized.
        try send("unconfirmed", to: c, platform: "ios", at: at(10), provider: "apns")
        // A receipt after as_of does not count.
        let late = try send("unconfirmed", to: a, platform: "android", at: at(11))
        try fixture.receipt(late, installation: a, at: Self.asOf.addingTimeInterval(3600), platform: "android")
        // Rule 8: unknown state (no snapshot), unresolved token, uninstrumented slice (Android 9.9).
        try send("unattributed", to: g, platform: "android", at: at(12))
        try send("unattributed", to: nil, platform: "ios", at: at(12), provider: "apns", token: "ab12")
        try send("unattributed", to: f, platform: "android", at: at(12))
        // Resolved by token (the writer's job): classified like any other send.
        try send("unconfirmed", to: a, platform: "android", at: at(13), token: "tok-a", resolvedBy: "token")
        // Rejection classes.
        try send(
            "rejected", to: c, platform: "ios", at: at(14), provider: "apns", status: 410, reason: "Unregistered",
            tokenInvalid: true)
        try send(
            "rejected", to: c, platform: "ios", at: at(14), provider: "apns", token: "bad", status: 400,
            reason: "BadDeviceToken", tokenInvalid: true)
        try send(
            "rejected", to: c, platform: "ios", at: at(14), provider: "apns", status: 403,
            reason: "InvalidProviderToken")
        try send("rejected", to: c, platform: "ios", at: at(14), provider: "apns", status: 0)
        // Instrumentation receipts for the Android 5.2.0 and iOS 3.0 slices (also confirm their sends).
        let probe = try send("received", to: a, platform: "android", at: at(15))
        try fixture.receipt(probe, installation: a, at: at(15.1), platform: "android")
        // Outside the window or after as_of: not in the report.
        try fixture.send(notification: notification(), installation: a, at: Fixture.time(2026, 11, 8, 23))
        try fixture.send(notification: notification(), installation: a, at: Fixture.time(2026, 11, 11, 18))
    }

    /// Expected counts of the sends matching `include`, tallied from the per-send outcomes.
    func counts(where include: (Expected) -> Bool = { _ in true }) -> OutcomeCounts {
        var c = OutcomeCounts()
        for e in expected where include(e) {
            guard let outcome = SendOutcome(rawValue: e.outcome) else { fatalError("unknown outcome \(e.outcome)") }
            c.add(outcome, tokenInvalid: e.tokenInvalid, toInvalidToken: e.toInvalidToken)
        }
        return c.withRatesOfCounts()
    }

    var query: ReportQuery { ReportQuery(app: Fixture.app, from: Self.from, to: Self.to, asOf: Self.asOf) }
}
