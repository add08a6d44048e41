import Foundation
import PushLedgerContract
import PushLedgerRules

/// Folds generated installations into a `Truth`, one installation at a time (memory stays
/// bounded). Whether a slice is instrumented (and reports background receipts) is only known at
/// the end, so each send keeps every possible outcome until `finish()`.
struct TruthAccumulator {
    let config: SimulationConfig
    let window: TruthWindow

    private struct SendKey: Hashable {
        var day: Int64
        var channel: Int
        var platform: Platform
        var version: Int?
        /// The outcome by the slice's instrumentation: ``outcomeIndex(instrumented:background:)``.
        var outcomes: [SendOutcome]
        /// The push type the sender reported, with ``SimulationConfig/pushMix`` only.
        var pushType: String?
        /// Web: the browser of the send's as-of snapshot and the push service of its endpoint.
        var browser: Browser?
        var pushService: PushService?
        /// The cause, should the send be unconfirmed; the latency bucket of a received or opened one.
        var cause: UnconfirmedCause?
        var latency: LatencyBucket?
        var slice: Truth.SnapshotSlice?
    }
    private struct RejectionKey: Hashable {
        var provider: PushProvider
        var status: Int
        var reason: String?
    }
    private struct Slice: Hashable {
        var platform: Platform
        var version: Int
    }

    private var sendCounts: [SendKey: Int] = [:]
    private var rejections: [RejectionKey: Int] = [:]
    private var instrumented = Set<Slice>()
    /// Slices with a receipt of a background push in the window.
    private var backgroundInstrumented = Set<Slice>()
    private var cohorts: [String: Truth.Cohort] = [:]
    private var tokenInvalid = 0
    private var knownInvalid = 0
    private var telemetryEvents = 0
    private var sendsTotal = 0
    private var duplicates = 0

    /// FCM's view of the same sends (`simulate --fcm-delivery-data`).
    var fcmDelivery = FCMDeliveryView()

    init(config: SimulationConfig, window: TruthWindow) {
        self.config = config
        self.window = window
    }

    private func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1_000) }
    private func inWindow(_ t: Int64) -> Bool { t >= window.from && t < window.to && t <= window.asOf }

    mutating func add(_ installation: GeneratedInstallation) {
        let plan = installation.plan
        telemetryEvents += installation.events.count
        sendsTotal += installation.sends.count
        fcmDelivery.add(installation)
        duplicates += installation.batches.filter(\.isRetry).reduce(0) { $0 + $1.eventCount }

        var snapshots: [(at: Int64, state: DisplayState, version: Int)] = []
        // every telemetry event is a sign of life (metrics.md "Why a send is unconfirmed")
        var life: [SignOfLife] = []
        var receipts: [SimUUID: [Receipt]] = [:]
        var registrations: [String: [Int64]] = [:]
        var exposure: (at: Int64, variant: String)?
        var firstPrompt: (at: Int64, result: PromptResult)?
        let backgroundPushes = Set(installation.sends.filter { $0.kind.pushType == "background" }.map(\.notificationID))
        for event in installation.events where event.at <= window.asOf {
            let receipt = event.payload.receipt
            let kind: SignOfLife.Kind
            if case .settings = event.payload {
                kind = .settings(forceStoppedBeforeStart: event.forceStoppedBeforeStart)
            } else {
                kind = receipt.map { .receipt(notificationID: Self.uuid($0.notification)) } ?? .other
            }
            life.append(
                SignOfLife(kind: kind, at: date(event.at), receivedAt: date(event.at), eventID: Self.uuid(event.id)))
            switch event.payload {
            case .settings(let s):
                snapshots.append(
                    (
                        event.at,
                        DisplayState(
                            snapshot: s.snapshot(platform: plan.platform, channels: config.channels),
                            platform: plan.platform), event.version
                    ))
            case .received, .opened, .dismissed:
                guard let receipt else { break }
                receipts[receipt.notification, default: []].append(Receipt(kind: receipt.kind, at: date(event.at)))
                if case .received = receipt.kind, inWindow(event.at) {
                    instrumented.insert(Slice(platform: plan.platform, version: event.version))
                    if backgroundPushes.contains(receipt.notification) {
                        backgroundInstrumented.insert(Slice(platform: plan.platform, version: event.version))
                    }
                }
            case .token(let token):
                registrations[token, default: []].append(event.at)
            case .exposure(let variant):
                if exposure == nil { exposure = (event.at, variant) }
            case .prompt(_, let kind, let result):
                let shown = PermissionPrompt(placement: "", prompt: kind, result: result).isShownSystemPrompt
                if shown && firstPrompt == nil { firstPrompt = (event.at, result) }
            }
        }
        let stateAt = { (t: Int64) -> (state: DisplayState, version: Int)? in
            guard let i = snapshots.lastIndex(where: { $0.at <= t }) else { return nil }
            return (snapshots[i].state, snapshots[i].version)
        }

        let sends = installation.sends.filter { $0.sentAt <= window.asOf }.sorted {
            ($0.sentAt, $0.eventID) < ($1.sentAt, $1.eventID)
        }
        let isResolved = { (send: SimSend) in
            send.installationID != nil || (registrations[send.token] ?? []).contains { $0 <= send.sentAt }
        }
        // the attempts resolved to this installation: what could supersede one of its sends
        let attempts = sends.filter(isResolved).map {
            InstallationAttempt(
                notificationID: Self.uuid($0.notificationID), provider: $0.provider.rawValue, collapseID: $0.collapseID,
                sentAt: date($0.sentAt), status: $0.status)
        }
        let slice = { (t: Int64) -> Truth.SnapshotSlice? in
            guard snapshots.contains(where: { $0.at <= t }) else { return nil }
            return Truth.SnapshotSlice(
                osVersion: TelemetryEncoder.osVersion(plan), sdkInt: plan.platform == .android ? plan.sdk : nil,
                standbyBucket: plan.standbyBucket, backgroundRestricted: plan.backgroundRestricted,
                ignoringBatteryOptimizations: plan.ignoringBatteryOptimizations, lowPowerMode: plan.lowPowerMode)
        }
        var lastInvalid: [String: Int64] = [:]
        for send in sends {
            let isInvalid = RejectionClass.isTokenInvalid(
                provider: send.provider, status: send.status, reason: send.reason)
            let known =
                lastInvalid[send.token].map { invalidAt in
                    !(registrations[send.token] ?? []).contains { $0 > invalidAt && $0 <= send.sentAt }
                } ?? false
            if isInvalid { lastInvalid[send.token] = send.sentAt }
            guard inWindow(send.sentAt) else { continue }
            if known { knownInvalid += 1 }
            if isInvalid { tokenInvalid += 1 }
            if !(200...299).contains(send.status) {
                rejections[
                    RejectionKey(provider: send.provider, status: send.status, reason: send.reason), default: 0] += 1
            }
            let resolved = isResolved(send)
            let asOf = resolved ? stateAt(send.sentAt) : nil
            let (sentAt, channel, asOfDate) = (date(send.sentAt), config.channels[send.channel].id, date(window.asOf))
            let sendReceipts = receipts[send.notificationID] ?? []
            let confirmation = Double(window.confirmationWindowMs) / 1_000
            let outcomes = [(false, false), (true, false), (false, true), (true, true)].map {
                instrumented, background in
                OutcomeRules.classify(
                    status: send.status, sentAt: sentAt, channel: channel, state: asOf?.state, receipts: sendReceipts,
                    instrumented: instrumented, asOf: asOfDate, confirmationWindow: confirmation,
                    confirmability: send.confirmability, backgroundInstrumented: background)
            }
            let ifInstrumented = outcomes[Self.outcomeIndex(instrumented: true, background: true)]
            var cause: UnconfirmedCause?
            if outcomes.contains(.unconfirmed) {
                cause = CauseRules.cause(
                    notificationID: Self.uuid(send.notificationID), provider: send.provider.rawValue,
                    collapseID: send.collapseID,
                    expiresAt: send.expiresAt.map(date), sentAt: sentAt, life: life, attempts: attempts, asOf: asOfDate)
            }
            var latency: LatencyBucket?
            if ifInstrumented == .received || ifInstrumented == .opened, let first = sendReceipts.map(\.at).min() {
                latency = LatencyBucket.of(sentAt: sentAt, firstReceiptAt: first)
            }
            let key = SendKey(
                day: SimTime.day(send.sentAt), channel: send.channel, platform: plan.platform, version: asOf?.version,
                outcomes: outcomes, pushType: config.pushMix && send.provider != .webpush ? send.kind.pushType : nil,
                browser: asOf == nil ? nil : plan.web?.browser,
                pushService: send.provider == .webpush ? PushService(endpoint: send.token) : nil, cause: cause,
                latency: latency, slice: resolved ? slice(send.sentAt) : nil)
            sendCounts[key, default: 0] += 1
        }

        if let exposure, inWindow(exposure.at) {
            var cohort = cohorts[exposure.variant] ?? Truth.Cohort(variant: exposure.variant)
            cohort.installs += 1
            if let firstPrompt {
                cohort.prompted += 1
                if firstPrompt.result == .granted { cohort.optedIn += 1 }
                if firstPrompt.result == .provisional { cohort.provisional += 1 }
            }
            let reach = stateAt(window.asOf)?.state.canDisplay ?? false
            if reach { cohort.reach += 1 }
            if reach && firstPrompt == nil { cohort.grantedWithoutPrompt += 1 }
            if let firstPrompt, firstPrompt.result == .granted {
                let week = firstPrompt.at + 7 * SimTime.msPerDay
                if snapshots.contains(where: { $0.at >= week }) {
                    cohort.retainedEligible += 1
                    if stateAt(week)?.state.canDisplay == true { cohort.retained += 1 }
                }
            }
            if let firstPrompt, let first = installation.events.first {
                cohort.hoursToPrompt.append(Double(firstPrompt.at - first.at) / Double(SimTime.msPerHour))
            }
            cohorts[exposure.variant] = cohort
        }
    }

    static func uuid(_ id: SimUUID) -> UUID { UUID(uuidString: SimTime.uuidString(id))! }

    /// Where a send's outcome for its slice's instrumentation is in ``SendKey/outcomes``.
    static func outcomeIndex(instrumented: Bool, background: Bool) -> Int {
        (instrumented ? 1 : 0) + (background ? 2 : 0)
    }

    func finish(duplicateSendEvents: Int) -> Truth {
        var merged: [Truth.OutcomeCount: Int] = [:]
        var causes: [Truth.CauseCount: Int] = [:]
        var latency: [Truth.LatencyCount: Int] = [:]
        var bySnapshot: [Truth.SliceOutcomeCount: Int] = [:]
        for (key, count) in sendCounts {
            let slice = key.version.map { Slice(platform: key.platform, version: $0) }
            let outcome = key.outcomes[
                Self.outcomeIndex(
                    instrumented: slice.map(instrumented.contains) ?? false,
                    background: slice.map(backgroundInstrumented.contains) ?? false)]
            let (day, channel, version) = (
                String(SimTime.rfc3339(key.day * SimTime.msPerDay).prefix(10)), config.channels[key.channel].id,
                key.version.map { config.appVersions[$0] }
            )
            let row = Truth.OutcomeCount(
                day: day, channel: channel, platform: key.platform, appVersion: version, pushType: key.pushType,
                browser: key.browser, pushService: key.pushService, outcome: outcome, count: 0)
            merged[row, default: 0] += count
            if outcome == .unconfirmed, let cause = key.cause {
                let causeRow = Truth.CauseCount(
                    day: day, channel: channel, platform: key.platform, appVersion: version, cause: cause, count: 0)
                causes[causeRow, default: 0] += count
            }
            if let bucket = key.latency {
                latency[
                    Truth.LatencyCount(
                        day: day, channel: channel, platform: key.platform, appVersion: version, bucket: bucket,
                        count: 0),
                    default: 0] += count
            }
            let sliceRow = Truth.SliceOutcomeCount(
                platform: key.platform, slice: key.slice ?? Truth.SnapshotSlice(), outcome: outcome, count: 0)
            bySnapshot[sliceRow, default: 0] += count
        }
        let rows = merged.map { row, count in
            var r = row
            r.count = count
            return r
        }.sorted { $0.order.lexicographicallyPrecedes($1.order) }
        let rejectionRows = rejections.map { key, count in
            Truth.RejectionCount(
                provider: key.provider, status: key.status, reason: key.reason,
                rejectionClass: RejectionClass.of(provider: key.provider, status: key.status, reason: key.reason)
                    ?? .other,
                count: count)
        }.sorted {
            ($0.provider.rawValue, $0.status, $0.reason ?? "") < ($1.provider.rawValue, $1.status, $1.reason ?? "")
        }
        var truth = Truth(
            appID: config.appID, experiment: config.experiment, window: window,
            instrumentedSlices: instrumented.map { "\($0.platform.rawValue)/\(config.appVersions[$0.version])" }
                .sorted(),
            outcomesByDay: rows, rejections: rejectionRows, tokenInvalid: tokenInvalid,
            sendsToKnownInvalidTokens: knownInvalid,
            cohorts: cohorts.values.map { c in
                var sorted = c
                sorted.hoursToPrompt.sort()
                return sorted
            }.sorted { $0.variant < $1.variant },
            telemetryEvents: telemetryEvents, sends: sendsTotal, duplicateEventsPosted: duplicates + duplicateSendEvents
        )
        truth.fcmDelivery = fcmDelivery
        truth.backgroundInstrumentedSlices = backgroundInstrumented.map {
            "\($0.platform.rawValue)/\(config.appVersions[$0.version])"
        }.sorted()
        truth.causes = causes.map { row, count in
            var r = row
            r.count = count
            return r
        }.sorted {
            ($0.day, $0.channel, $0.platform.rawValue, $0.appVersion ?? "", $0.cause.rawValue)
                < ($1.day, $1.channel, $1.platform.rawValue, $1.appVersion ?? "", $1.cause.rawValue)
        }
        truth.latency = latency.map { row, count in
            var r = row
            r.count = count
            return r
        }.sorted {
            ($0.day, $0.channel, $0.platform.rawValue, $0.appVersion ?? "", $0.bucket)
                < ($1.day, $1.channel, $1.platform.rawValue, $1.appVersion ?? "", $1.bucket)
        }
        // in a fixed order, as the other lists: two runs of one fleet have equal truths
        truth.outcomesBySnapshot = bySnapshot.map { row, count in
            var r = row
            r.count = count
            return r
        }.sorted { Self.order($0) < Self.order($1) }
        return truth
    }

    private static func order(_ r: Truth.SliceOutcomeCount) -> String {
        let s = r.slice
        let fields: [String] = [
            r.platform.rawValue, s.osVersion ?? "", s.sdkInt.map(String.init) ?? "", s.standbyBucket ?? "",
            s.backgroundRestricted.map(String.init) ?? "", s.ignoringBatteryOptimizations.map(String.init) ?? "",
            s.lowPowerMode.map(String.init) ?? "", r.outcome.rawValue,
        ]
        return fields.joined(separator: "|")
    }
}
