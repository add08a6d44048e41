import Foundation
import PushLedgerContract
import PushLedgerRules
import Testing

@testable import Simulator

/// Recounts the truth from the generated JSON bodies alone (as the server would see them,
/// received at the simulated end), with its own parsing and joins, and compares.
@Suite("Truth equals an independent recount of the generated bodies")
struct RecountTests {
    struct Snapshot {
        var at: Int64
        var state: DisplayState
        var version: String?
        var browser: String?
    }
    struct Install {
        var platform = Platform.ios
        var snapshots: [Snapshot] = []
        var exposure: (at: Int64, variant: String)?
        var firstPrompt: (at: Int64, result: String)?
        var firstEvent: Int64 = .max
    }

    /// 0: the reported days; 1: a window inside them, as of an earlier time; 2: a steady fleet's
    /// reported days, after warm-up days whose telemetry and sends are posted too; 3: the
    /// reported days of a fleet whose senders report v1.3's kinds of push; 4: the reported days of a
    /// fleet with web installations (per browser and push service).
    @Test(arguments: [0, 1, 2, 3, 4])
    func recountMatches(windowChoice: Int) throws {
        var config = Fixtures.config(installs: 400, seed: 11)
        if windowChoice == 2 { config.makeSteady(warmupDays: 11) }
        config.pushMix = windowChoice == 3
        config.webShare = windowChoice == 4 ? 0.4 : 0
        let window =
            windowChoice != 1
            ? Simulation.defaultWindow(config)
            : TruthWindow(
                from: config.startMs + 2 * SimTime.msPerDay, to: config.endMs - 3 * SimTime.msPerDay,
                asOf: config.endMs - 2 * SimTime.msPerDay)
        let output = Simulation.generate(config, window: window)
        let recount = try recount(output, config: config, window: window)
        if windowChoice == 2 {
            // the warm-up was generated: sends before the window, which the truth leaves out
            let sentAt = try output.sends.filter { !$0.isRetry }.flatMap { try Fixtures.sends($0) }.map {
                try Fixtures.ms($0["sent_at"])
            }
            #expect(sentAt.min().map { $0 < config.startMs - 10 * SimTime.msPerDay } == true)
            #expect(output.truth.sends == sentAt.count)
            #expect(
                output.truth.outcomesByDay.map(\.count).reduce(0, +)
                    == sentAt.filter { $0 >= config.startMs && $0 < config.endMs }.count)
        }
        let truthRows = Dictionary(
            output.truth.outcomesByDay.map {
                (
                    key(
                        $0.day, $0.channel, $0.platform.rawValue, $0.appVersion, $0.pushType, $0.browser?.rawValue,
                        $0.pushService?.rawValue, $0.outcome.rawValue),
                    $0.count
                )
            }
        ) { $0 + $1 }
        #expect(truthRows == recount.outcomes)
        #expect(
            output.truth.cohorts.map {
                [
                    $0.variant: [
                        $0.installs, $0.prompted, $0.optedIn, $0.provisional, $0.reach, $0.grantedWithoutPrompt,
                        $0.retainedEligible, $0.retained,
                    ]
                ]
            }
                == recount.cohorts.keys.sorted().map { [$0: recount.cohorts[$0]!] })
        #expect(
            output.truth.cohorts.map(\.medianHoursToPrompt)
                == recount.cohorts.keys.sorted().map { recount.medians[$0] ?? nil })
        if windowChoice == 0 {
            // revocations after a grant make retention measurable and below 100%
            #expect(
                output.truth.cohorts.allSatisfy {
                    $0.retainedEligible > 0 && $0.retained > 0 && $0.retained < $0.retainedEligible
                })
        }
        #expect(output.truth.tokenInvalid == recount.tokenInvalid)
        #expect(output.truth.sendsToKnownInvalidTokens == recount.knownInvalid)
        #expect(
            Dictionary(
                output.truth.rejections.map { ("\($0.provider.rawValue) \($0.status) \($0.reason ?? "-")", $0.count) }
            ) { $0 + $1 } == recount.rejections)
        // the fleet exercises every outcome (nothing in the earlier window is young enough to be
        // pending; after a warm-up every device has reported and every slice is instrumented;
        // only senders that report their kinds of push send what cannot confirm)
        let expected = Set(SendOutcome.allCases).subtracting(
            [[.unconfirmable], [.pending, .unconfirmable], [.unattributed, .unconfirmable], [], [.unconfirmable]][
                windowChoice])
        #expect(Set(output.truth.outcomesByDay.map(\.outcome)) == expected)
        if windowChoice == 4 {
            // a browser has no notification channels
            let web = output.truth.outcomesByDay.filter { $0.platform == .web }
            #expect(Set(web.map(\.outcome)) == expected.subtracting([.blockedChannel]))
        }
        #expect(output.truth.sendsToKnownInvalidTokens > 0 && output.truth.tokenInvalid > 0)
    }

    private func key(_ parts: String?...) -> String { parts.map { $0 ?? "null" }.joined(separator: "|") }

    struct Recount {
        var outcomes: [String: Int] = [:]
        var cohorts: [String: [Int]] = [:]
        var medians: [String: Double?] = [:]
        var tokenInvalid = 0
        var knownInvalid = 0
        var rejections: [String: Int] = [:]
    }

    private func recount(_ output: Simulation.Output, config: SimulationConfig, window: TruthWindow) throws -> Recount {
        var installs: [String: Install] = [:]
        var receipts: [String: [Receipt]] = [:]
        var registrations: [String: [(at: Int64, installation: String)]] = [:]
        var instrumented = Set<String>()
        var backgroundInstrumented = Set<String>()
        var seen = Set<String>()
        func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1_000) }
        let inWindow = { (t: Int64) in t >= window.from && t < window.to && t <= window.asOf }

        var sends: [[String: Any]] = []
        var seenSends = Set<String>()
        for batch in output.sends {
            for send in try Fixtures.sends(batch) where seenSends.insert(send["event_id"] as! String).inserted {
                sends.append(send)
            }
        }
        let backgroundPushes = Set(
            sends.filter { $0["push_type"] as? String == "background" }.map { $0["notification_id"] as! String })

        for batch in output.telemetry {
            let body = try Fixtures.object(batch.body)
            let id = body["installation_id"] as! String
            let platform = Platform(rawValue: body["platform"] as! String)!
            let version = body["app_version"] as? String
            let sentAt = try Fixtures.ms(body["sent_at"])
            var install = installs[id] ?? Install()
            install.platform = platform
            for event in body["events"] as! [[String: Any]] {
                guard seen.insert(event["event_id"] as! String).inserted else { continue }
                let at = config.endMs - (sentAt - (try Fixtures.ms(event["at"])))
                guard at <= window.asOf else { continue }
                install.firstEvent = min(install.firstEvent, at)
                switch event["type"] as! String {
                case "notification_settings":
                    install.snapshots.append(
                        Snapshot(
                            at: at, state: DisplayState(snapshot: parseSnapshot(event), platform: platform),
                            version: version, browser: body["browser"] as? String))
                case "notification_received", "notification_dismissed":
                    // a dismissal is a receipt of a displayed notification
                    let displayed =
                        event["type"] as? String == "notification_dismissed" ? true : event["displayed"] as? Bool
                    receipts[event["notification_id"] as! String, default: []].append(
                        Receipt(kind: .received(displayed: displayed), at: date(at)))
                    if inWindow(at) {
                        instrumented.insert("\(platform.rawValue)/\(version ?? "null")")
                        if backgroundPushes.contains(event["notification_id"] as! String) {
                            backgroundInstrumented.insert("\(platform.rawValue)/\(version ?? "null")")
                        }
                    }
                case "notification_opened":
                    receipts[event["notification_id"] as! String, default: []].append(
                        Receipt(kind: .opened, at: date(at)))
                case "push_token":
                    registrations[event["token"] as! String, default: []].append((at, id))
                case "experiment_exposure":
                    if (event["experiment"] as? String) == config.experiment,
                        install.exposure.map({ $0.at > at }) ?? true
                    {
                        install.exposure = (at, event["variant"] as! String)
                    }
                case "permission_prompt":
                    if event["prompt"] as? String == "system", event["result"] as? String != "already_determined",
                        install.firstPrompt.map({ $0.at > at }) ?? true
                    {
                        install.firstPrompt = (at, event["result"] as! String)
                    }
                default: Issue.record("unexpected type \(String(describing: event["type"]))")
                }
            }
            installs[id] = install
        }
        for id in installs.keys { installs[id]!.snapshots.sort { $0.at < $1.at } }

        let sentAt = { (s: [String: Any]) in try Fixtures.ms(s["sent_at"]) }
        sends = try sends.filter { try sentAt($0) <= window.asOf }.sorted { try sentAt($0) < sentAt($1) }

        var result = Recount()
        var lastInvalid: [String: Int64] = [:]
        for send in sends {
            let t = try sentAt(send), token = send["token"] as! String
            let status = send["status"] as! Int, reason = send["reason"] as? String
            let provider = PushProvider(rawValue: send["provider"] as! String)!
            let invalid = RejectionClass.isTokenInvalid(provider: provider, status: status, reason: reason)
            let known =
                lastInvalid[token].map { i in !(registrations[token] ?? []).contains { $0.at > i && $0.at <= t } }
                ?? false
            if invalid { lastInvalid[token] = t }
            guard inWindow(t) else { continue }
            if known { result.knownInvalid += 1 }
            if invalid { result.tokenInvalid += 1 }
            if !(200...299).contains(status) {
                result.rejections["\(send["provider"] as! String) \(status) \(reason ?? "-")", default: 0] += 1
            }
            let installation =
                send["installation_id"] as? String
                ?? registrations[token]?.filter { $0.at <= t }.max { $0.at < $1.at }?.installation
            let snapshot = installation.flatMap { installs[$0]?.snapshots.last { $0.at <= t } }
            let platform =
                installation.flatMap { installs[$0]?.platform }
                ?? [.apns: .ios, .fcm: .android, .webpush: .web][provider]!
            let slice = "\(platform.rawValue)/\(snapshot?.version ?? "null")"
            let confirmability = Confirmability(
                provider: PushProvider(rawValue: send["provider"] as! String)!, pushType: send["push_type"] as? String,
                mutableContent: send["mutable_content"] as? Bool,
                messageKind: (send["message_kind"] as? String).flatMap(MessageKind.init(rawValue:)))
            let outcome = OutcomeRules.classify(
                status: status, sentAt: date(t), channel: send["channel"] as! String, state: snapshot?.state,
                receipts: receipts[send["notification_id"] as! String] ?? [],
                instrumented: instrumented.contains(slice),
                asOf: date(window.asOf), confirmationWindow: Double(window.confirmationWindowMs) / 1_000,
                confirmability: confirmability, backgroundInstrumented: backgroundInstrumented.contains(slice))
            let day = String(SimTime.rfc3339(t).prefix(10))
            let pushType = config.pushMix ? send["push_type"] as? String : nil
            // web: the browser of the as-of snapshot's batch, and the push service of the endpoint's host
            let browser = snapshot?.browser
            let service = provider == .webpush ? PushService(endpoint: token).rawValue : nil
            result.outcomes[
                key(
                    day, send["channel"] as? String, platform.rawValue, snapshot?.version, pushType, browser, service,
                    outcome.rawValue),
                default: 0
            ] += 1
        }
        var hours: [String: [Double]] = [:]
        for install in installs.values {
            guard let exposure = install.exposure, inWindow(exposure.at) else { continue }
            var c = result.cohorts[exposure.variant] ?? [0, 0, 0, 0, 0, 0, 0, 0]
            if let p = install.firstPrompt {
                hours[exposure.variant, default: []].append(Double(p.at - install.firstEvent) / 3_600_000)
                let week = p.at + 7 * 86_400_000
                if p.result == "granted", install.snapshots.contains(where: { $0.at >= week }) {
                    c[6] += 1
                    if install.snapshots.last(where: { $0.at <= week })?.state.canDisplay == true { c[7] += 1 }
                }
            }
            c[0] += 1
            if let p = install.firstPrompt {
                c[1] += 1
                if p.result == "granted" { c[2] += 1 }
                if p.result == "provisional" { c[3] += 1 }
            }
            let reach = install.snapshots.last { $0.at <= window.asOf }?.state.canDisplay ?? false
            if reach { c[4] += 1 }
            if reach && install.firstPrompt == nil { c[5] += 1 }
            result.cohorts[exposure.variant] = c
        }
        for (variant, list) in hours {
            let h = list.sorted()
            result.medians[variant] = h.count % 2 == 1 ? h[h.count / 2] : (h[h.count / 2 - 1] + h[h.count / 2]) / 2
        }
        return result
    }

    private func parseSnapshot(_ e: [String: Any]) -> SettingsSnapshot {
        let setting = { (name: String) in (e[name] as? String).flatMap(NotificationSetting.init(rawValue:)) }
        let channels = (e["channels"] as? [[String: Any]])?.map {
            ChannelState(
                id: $0["id"] as! String, importance: $0["importance"] as! Int, group: $0["group"] as? String,
                groupBlocked: $0["group_blocked"] as? Bool)
        }
        return SettingsSnapshot(
            authorizationStatus: (e["authorization_status"] as? String).flatMap(AuthorizationStatus.init(rawValue:)),
            alertSetting: setting("alert_setting"), lockScreenSetting: setting("lock_screen_setting"),
            notificationCenterSetting: setting("notification_center_setting"),
            notificationsEnabled: e["notifications_enabled"] as? Bool,
            postNotifications: (e["post_notifications"] as? String).flatMap(PostNotificationsState.init(rawValue:)),
            channels: channels,
            pushPermissionState: (e["push_permission_state"] as? String).flatMap(PushPermissionState.init(rawValue:)))
    }
}
