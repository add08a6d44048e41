import PushLedgerContract

/// The browsers of a fleet's web installations (contract v1.3, "Web Push"), with
/// ``SimulationConfig/webShare``. Shares follow published browser market shares for sites that
/// ask for push permission; each installation's push service follows its browser (and OS).
public struct WebFleet: Sendable {
    /// Browsers and their shares of web installations.
    public var browsers: [(browser: Browser, share: Double)] = [
        (.chrome, 0.65), (.safari, 0.15), (.edge, 0.10), (.firefox, 0.07), (.samsung, 0.015), (.opera, 0.01),
        (.other, 0.005),
    ]
    /// Share of Safari installations that are iOS/iPadOS home-screen web apps (`display_mode:
    /// standalone`; in the browser itself iOS Safari gets no push), the rest Safari on macOS.
    public var iosHomeScreenShareOfSafari = 0.4
    /// Share of Chrome and Edge installations on Android (FCM endpoints), the rest on the desktop.
    public var androidShareOfChromium = 0.3
    /// Share of desktop Chrome and Edge installations running as an installed web app (standalone).
    public var installedAppShare = 0.05
    /// Existing users' answers, long ago: granted, denied, and the rest never answered (`default`).
    public var existingGranted = 0.45
    public var existingDenied = 0.25
    /// Chance per day that a subscriber blocks the site's notifications or resets them, whenever
    /// it subscribed (beside ``SimulationConfig/revocationRate``'s revocations days after a prompt).
    public var revokeDailyChance = 0.004
    /// Share of revocations that reset the permission to `default` ("Reset permission") rather than block.
    public var resetShareOfRevocations = 0.4
    /// Chance per day that a subscription expires (`expirationTime` passed, or `pushsubscriptionchange`
    /// without a new one): the push service answers 404/410 from then on.
    public var subscriptionExpiryDailyChance = 0.006
    /// Share of expired subscriptions the service worker replaces at the next visit (a new endpoint).
    public var resubscribeShare = 0.6
    /// Chance per day that the browser is closed for one to four days (nothing delivered meanwhile;
    /// pushes past their TTL are discarded by the push service).
    public var closedForDaysDailyChance = 0.04
    /// Share of computers whose browser is closed every night (local 22–24 h to 7–9 h): pushes wait
    /// for the morning, and of an order's updates with one `Topic` only the last is delivered.
    public var closedAtNightShare = 0.5
    /// `TTL` of order and chat pushes in minutes (promotions use ``SimulationConfig/promotionExpiryMinutes``).
    public var ttlMinutes: Int64 = 24 * 60
    /// Share of displayed notifications the user closes without a click (`notification_dismissed`).
    public var dismissShare = 0.35
}

/// What one web installation is: a browser profile on the app's origin (contract v1.3), drawn
/// once from the installation's own stream.
struct WebTraits {
    let browser: Browser
    let browserVersion: String
    let osVersion: String
    let displayMode: DisplayMode
    /// A computer's browser (not a phone's or a home-screen app).
    let desktop: Bool
    /// Where its browser's subscriptions point: the push service behind every endpoint it registers.
    let pushService: PushService

    private static let versions: [Browser: [String]] = [
        .chrome: ["131.0.6778.86", "130.0.6723.117"], .edge: ["131.0.2903.70", "130.0.2849.80"],
        .firefox: ["133.0", "132.0.2"], .safari: ["18.1", "17.6"], .samsung: ["27.0.1.2", "26.0.3.1"],
        .opera: ["115.0.5322.68"], .other: ["1.73.91"],
    ]
    private static let desktops = ["Windows 10.0", "macOS 14.5", "Linux x86_64"]

    init(fleet: WebFleet, random r: inout SimRandom) {
        browser = fleet.browsers[r.weighted(fleet.browsers.map(\.share))].browser
        let versions = Self.versions[browser] ?? ["1.0"]
        browserVersion = versions[Int(r.below(Int64(versions.count)))]
        let android = r.chance(fleet.androidShareOfChromium) ? ["Android 14", "Android 15"][Int(r.below(2))] : nil
        var standalone = false
        switch browser {
        case .chrome, .edge:
            osVersion = android ?? (browser == .edge ? "Windows 10.0" : Self.desktops[r.weighted([0.7, 0.2, 0.1])])
            standalone = android == nil && r.chance(fleet.installedAppShare)
            // Edge on Windows subscribes through WNS; Chromium elsewhere through FCM
            pushService = browser == .edge && android == nil ? .windows : .fcm
        case .safari:
            standalone = r.chance(fleet.iosHomeScreenShareOfSafari)
            osVersion = standalone ? ["iOS 17.4", "iOS 18.1"][Int(r.below(2))] : "macOS 14.5"
            pushService = .apple
        case .firefox:
            osVersion = Self.desktops[r.weighted([0.6, 0.25, 0.15])]
            pushService = .mozilla
        case .samsung:
            osVersion = "Android 14"
            pushService = .fcm
        case .opera:
            osVersion = "Windows 10.0"
            pushService = .fcm
        case .other:
            osVersion = "Linux x86_64"
            pushService = .other
        }
        displayMode = standalone ? .standalone : .browser
        desktop = !osVersion.hasPrefix("Android") && !osVersion.hasPrefix("iOS")
    }

    /// When the browser is closed between `from` and `to`: every night on some computers, and now
    /// and then for days (unsorted; they may overlap).
    func closures(
        from: Int64, to: Int64, timeZoneHours: Int64, fleet: WebFleet, random r: inout SimRandom
    ) -> [(Int64, Int64)] {
        var periods: [(Int64, Int64)] = []
        let nightly = desktop && r.chance(fleet.closedAtNightShare)
        var day = SimTime.day(from) - 1
        while day < SimTime.day(to) {
            let midnight = day * SimTime.msPerDay - timeZoneHours * SimTime.msPerHour
            if nightly {
                let close = midnight + 22 * SimTime.msPerHour + r.below(2 * SimTime.msPerHour)
                let open = midnight + 31 * SimTime.msPerHour + r.below(2 * SimTime.msPerHour)
                if open > from { periods.append((max(close, from), open)) }
            }
            if r.chance(fleet.closedForDaysDailyChance) {
                let close = max(from, day * SimTime.msPerDay + r.below(SimTime.msPerDay))
                periods.append((close, close + SimTime.msPerDay + r.below(3 * SimTime.msPerDay)))
            }
            day += 1
        }
        return periods
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// A new subscription's endpoint, shaped like the real ones of its push service.
    func endpoint(_ r: inout SimRandom) -> String {
        func id(_ count: Int) -> String { String((0..<count).map { _ in Self.alphabet[Int(r.below(64))] }) }
        switch pushService {
        case .fcm: return "https://fcm.googleapis.com/fcm/send/" + id(11) + ":APA91b" + id(134)
        case .mozilla: return "https://updates.push.services.mozilla.com/wpush/v2/gAAAAAB" + id(140)
        case .apple: return "https://web.push.apple.com/Q" + id(150)
        case .windows:
            let node = ["bl2p", "db5p", "par02p"][Int(r.below(3))]
            return "https://wns2-\(node).notify.windows.com/w/?token=BQYAAAB" + id(200)
        case .other: return "https://push.example.net/wpush/" + id(64)
        }
    }

    /// What the push service answers for a subscription that is gone (expired or unsubscribed):
    /// Mozilla's autopush 404, the others 410.
    var goneAnswer: (status: Int, reason: String?) {
        switch pushService {
        case .fcm: (410, "push subscription has unsubscribed or expired.")
        case .mozilla: (404, "Not Found")
        case .apple: (410, "Unregistered")
        case .windows, .other: (410, nil)
        }
    }
}
