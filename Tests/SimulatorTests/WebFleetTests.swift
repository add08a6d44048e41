import Foundation
import PushLedgerContract
import PushLedgerRules
import Testing

@testable import Simulator

/// Web installations (contract v1.3, "Web Push"): their bodies pass the contract's own
/// validators, their browsers, push services and settings are as configured, and the truth
/// holds every web outcome and the causes the browser's mechanisms produce.
@Suite("Web installations")
struct WebFleetTests {
    static let config = {
        var config = Fixtures.config(installs: 1_500, seed: 17)
        config.webShare = 0.4
        return config
    }()
    static let output = Simulation.generate(config)

    /// The validated web telemetry and Web Push sends of the fleet (every body must pass).
    static func validated() throws -> (telemetry: [ValidatedTelemetry], sends: [SendResult]) {
        let receivedAt = Date(timeIntervalSince1970: Double(config.endMs) / 1_000)
        var telemetry: [ValidatedTelemetry] = []
        for batch in output.telemetry where !batch.isRetry {
            let result = try TelemetryValidator.validate(
                body: batch.body, keyAppID: config.appID, receivedAt: receivedAt, limits: IngestLimits())
            #expect(result.rejections.isEmpty, "\(result.rejections.map(\.message))")
            if result.envelope.platform == .web { telemetry.append(result) }
        }
        var sends: [SendResult] = []
        for batch in output.sends where !batch.isRetry {
            let format: SendsFormat = batch.contentType == "application/x-ndjson" ? .ndjson : .json
            let result = try SendsValidator.validate(
                body: batch.body, format: format, keyAppID: config.appID, receivedAt: receivedAt,
                limits: IngestLimits())
            #expect(result.rejections.isEmpty, "\(result.rejections.map(\.message))")
            sends += result.sends.filter { $0.provider == .webpush }
        }
        return (telemetry, sends)
    }

    @Test func bodiesPassTheContractAndCarryTheBrowser() throws {
        let (telemetry, sends) = try Self.validated()
        var browsers: [Browser: Set<UUID>] = [:]
        var pushServices: [String: PushService] = [:]
        var settings: [String: Int] = [:]
        var types = Set<String>()
        for batch in telemetry {
            let envelope = batch.envelope
            let browser = try #require(envelope.browser)
            #expect(envelope.browserVersion != nil && envelope.osVersion != nil && envelope.sdkInt == nil)
            browsers[browser, default: []].insert(envelope.installationID)
            for event in batch.events {
                types.insert(event.payload.typeName)
                switch event.payload {
                case .notificationSettings(let s):
                    let state = [
                        s.authorizationStatus?.rawValue, s.pushPermissionState?.rawValue, s.subscription?.rawValue,
                    ]
                    settings[state.map { $0 ?? "∅" }.joined(separator: "/"), default: 0] += 1
                    // iOS Safari gets pushes only as a home-screen web app
                    if envelope.osVersion?.hasPrefix("iOS") == true { #expect(s.displayMode == .standalone) }
                case .pushToken(let token):
                    #expect(token.provider == .webpush)
                    pushServices["\(browser.rawValue) \(envelope.osVersion ?? "")"] = PushService(endpoint: token.token)
                case .notificationReceived(let receipt): #expect(receipt.displayed == true)
                default: break
                }
            }
        }
        // the push service follows the browser: Chromium's FCM, Edge's WNS on Windows, Firefox's
        // autopush, Apple's for Safari on the Mac and home-screen apps
        for (browserAndOS, service) in pushServices {
            let expected: PushService =
                switch browserAndOS.split(separator: " ")[0] {
                case "firefox": .mozilla
                case "safari": .apple
                case "edge": browserAndOS.contains("Windows") ? .windows : .fcm
                case "other": .other
                default: .fcm
                }
            #expect(service == expected, "\(browserAndOS)")
        }
        #expect(Set(pushServices.values).isSuperset(of: [.fcm, .mozilla, .apple, .windows]))
        // Chrome about 65 %, Safari 15 %, Edge 10 %, Firefox 7 %
        let installs = Double(browsers.values.map(\.count).reduce(0, +))
        for (browser, share) in [(Browser.chrome, 0.65), (.safari, 0.15), (.edge, 0.10), (.firefox, 0.07)] {
            #expect(abs(Double(browsers[browser]?.count ?? 0) / installs - share) < 0.05, "\(browser)")
        }
        // granted and subscribed, blocked, left at default, and subscriptions that expired
        #expect(
            Set(settings.keys).isSuperset(of: [
                "authorized/granted/active", "denied/denied/none", "not_determined/prompt/none",
                "authorized/granted/expired",
            ]), "\(settings)")
        #expect(
            types.isSuperset(of: [
                "notification_settings", "permission_prompt", "push_token", "notification_received",
                "notification_opened", "notification_dismissed",
            ]))

        #expect(!sends.isEmpty)
        for send in sends {
            #expect(send.priority == nil && send.pushType == nil && send.apnsID == nil)
            #expect(send.expiresAt != nil && send.urgency != nil)
            if (200...299).contains(send.status) { #expect(send.status == 201) }
        }
        #expect(Set(sends.compactMap(\.urgency)) == Set(Urgency.allCases))
        #expect(sends.contains { $0.collapseID?.hasPrefix("order-") == true }, "order updates carry a Topic")
        #expect(Set(sends.map(\.status)).isSuperset(of: [201, 404, 410]))
    }

    @Test func theTruthHoldsWebOutcomesAndCausesPerBrowser() throws {
        let truth = Self.output.truth
        let web = truth.outcomesByDay.filter { $0.platform == .web }
        // every outcome but unconfirmable (every web push can confirm) and blocked_channel (a
        // browser has no notification channels)
        #expect(Set(web.map(\.outcome)) == Set(SendOutcome.allCases).subtracting([.unconfirmable, .blockedChannel]))
        #expect(web.allSatisfy { $0.pushService != nil })
        #expect(truth.outcomesByDay.allSatisfy { $0.platform == .web || ($0.browser == nil && $0.pushService == nil) })
        #expect(Set(web.compactMap(\.browser)).isSuperset(of: [.chrome, .safari, .edge, .firefox]))
        for outcome in SendOutcome.allCases {
            let perBrowser: [Int] = Browser.allCases.map { truth.count(outcome, platform: .web, browser: $0) }
            let resolved: [Int] = web.filter { $0.outcome == outcome && $0.browser != nil }.map(\.count)
            #expect(perBrowser.reduce(0, +) == resolved.reduce(0, +))
        }
        // browsers closed for days: pushes past their TTL; a later push with the order's Topic
        // replaced an undelivered one; subscriptions gone: 404 and 410 on the invalid-token feed
        #expect(truth.count(.expired, platform: .web) > 0)
        #expect(truth.count(.superseded, channel: "orders", platform: .web) > 0)
        #expect(truth.count(.blockedApp, platform: .web) > 0)
        let gone = truth.rejections.filter { $0.provider == .webpush && $0.rejectionClass == .tokenInvalid }
        #expect(Set(gone.map(\.status)) == [404, 410])
        #expect(truth.instrumentedSlices.contains { $0.hasPrefix("web/") })
        let json = try Fixtures.object(truth.json())
        let totals = try #require(json["outcomes"] as? [[String: Any]])
        let webTotals = totals.filter { $0["platform"] as? String == "web" }
        #expect(!webTotals.isEmpty && webTotals.allSatisfy { $0["push_service"] is String })
        #expect(webTotals.contains { $0["browser"] as? String == "chrome" })
    }

    /// Whether an installation is a browser draws from a stream of its own: the phones of a fleet
    /// with web installations are the phones of the same fleet without.
    @Test func phonesStayAsTheyWere() {
        var phonesOnly = Self.config
        phonesOnly.webShare = 0
        var webInstalls = 0
        for index in 0..<80 {
            let mixed = GeneratedInstallation(index: index, config: Self.config)
            guard mixed.plan.platform != .web else {
                webInstalls += 1
                continue
            }
            let alone = GeneratedInstallation(index: index, config: phonesOnly)
            #expect(mixed.batches.map(\.body) == alone.batches.map(\.body))
            #expect(mixed.sends.map(\.eventID) == alone.sends.map(\.eventID))
        }
        #expect(webInstalls > 0)
    }
}
