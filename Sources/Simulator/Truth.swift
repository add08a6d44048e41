import PushLedgerContract
import PushLedgerRules
import PushLedgerSupport

/// The report window the truth is computed for (ms since the epoch).
public struct TruthWindow: Sendable, Equatable {
    public var from: Int64
    public var to: Int64
    public var asOf: Int64
    public var confirmationWindowMs: Int64
    public init(
        from: Int64, to: Int64, asOf: Int64,
        confirmationWindowMs: Int64 = Int64(OutcomeRules.defaultConfirmationSpan.seconds) * 1_000
    ) {
        self.from = from
        self.to = to
        self.asOf = asOf
        self.confirmationWindowMs = confirmationWindowMs
    }
}

/// What reports over the simulated data must say, computed from the generated events with
/// `OutcomeRules`, as the server sees them (corrected telemetry time = true time + the
/// posting delay; the time grid keeps that delay from changing any comparison).
public struct Truth: Sendable, Equatable {
    public struct OutcomeCount: Sendable, Equatable, Hashable {
        /// UTC day of `sent_at`, "YYYY-MM-DD".
        public var day: String
        public var channel: String
        public var platform: Platform
        /// The send's slice version (its installation's as-of snapshot); nil when unknown.
        public var appVersion: String?
        /// The push type the sender reported: with ``SimulationConfig/pushMix`` only, else nil.
        public var pushType: String? = nil
        /// Web: the browser of the send's as-of snapshot (nil without one, as ``appVersion``) and
        /// the push service of its endpoint; nil on the other platforms.
        public var browser: Browser? = nil
        public var pushService: PushService? = nil
        public var outcome: SendOutcome
        public var count: Int

        /// The slice's fields in a fixed order (the rows' order in the truth).
        var order: [String] {
            [
                day, channel, platform.rawValue, appVersion ?? "", pushType ?? "", browser?.rawValue ?? "",
                pushService?.rawValue ?? "", outcome.rawValue,
            ]
        }
    }

    public struct RejectionCount: Sendable, Equatable {
        public var provider: PushProvider
        public var status: Int
        public var reason: String?
        public var rejectionClass: RejectionClass
        public var count: Int
    }

    public struct Cohort: Sendable, Equatable {
        public var variant: String
        public var installs = 0
        public var prompted = 0
        public var optedIn = 0
        public var provisional = 0
        /// Installations whose as-of state at `as_of` can display.
        public var reach = 0
        public var grantedWithoutPrompt = 0
        /// retained_7d: first prompt granted at g and a snapshot in [g + 7 d, as_of] (denominator) …
        public var retainedEligible = 0
        /// … of which the as-of state at g + 7 d can display (numerator).
        public var retained = 0
        /// Hours from the first telemetry event to the first shown system prompt, per prompted
        /// installation (sorted); its median is the report's `median_hours_to_prompt`.
        public var hoursToPrompt: [Double] = []

        /// Median of `hoursToPrompt` (the mean of the two middle values on an even count).
        public var medianHoursToPrompt: Double? {
            guard !hoursToPrompt.isEmpty else { return nil }
            let n = hoursToPrompt.count
            return n % 2 == 1 ? hoursToPrompt[n / 2] : (hoursToPrompt[n / 2 - 1] + hoursToPrompt[n / 2]) / 2
        }
    }

    /// The v1.2 slices of a send: its installation's as-of snapshot (all nil without one).
    public struct SnapshotSlice: Sendable, Hashable {
        public var osVersion: String?
        public var sdkInt: Int?
        public var standbyBucket: String?
        public var backgroundRestricted: Bool?
        public var ignoringBatteryOptimizations: Bool?
        public var lowPowerMode: Bool?
    }

    /// Unconfirmed sends of one cause (metrics.md "Why a send is unconfirmed").
    public struct CauseCount: Sendable, Equatable, Hashable {
        public var day: String
        public var channel: String
        public var platform: Platform
        public var appVersion: String?
        public var cause: UnconfirmedCause
        public var count: Int
    }

    /// Received and opened sends of one latency bucket (metrics.md "Delivery latency").
    public struct LatencyCount: Sendable, Equatable, Hashable {
        public var day: String
        public var channel: String
        public var platform: Platform
        public var appVersion: String?
        public var bucket: LatencyBucket
        public var count: Int
    }

    /// Sends of one outcome per platform and v1.2 snapshot slice, over the window.
    public struct SliceOutcomeCount: Sendable, Equatable, Hashable {
        public var platform: Platform
        public var slice: SnapshotSlice
        public var outcome: SendOutcome
        public var count: Int
    }

    public var appID: String
    public var experiment: String
    public var window: TruthWindow
    /// "platform/app_version" slices with a `notification_received` in the window.
    public var instrumentedSlices: [String]
    /// "platform/app_version" slices with a receipt of a background push in the window.
    public var backgroundInstrumentedSlices: [String] = []
    public var outcomesByDay: [OutcomeCount]
    /// The causes of the unconfirmed sends, and the latency buckets of the received and opened ones.
    public var causes: [CauseCount] = []
    public var latency: [LatencyCount] = []
    public var outcomesBySnapshot: [SliceOutcomeCount] = []
    public var rejections: [RejectionCount]
    public var tokenInvalid: Int
    public var sendsToKnownInvalidTokens: Int
    public var cohorts: [Cohort]
    /// Distinct telemetry events and sends generated (what the server should store).
    public var telemetryEvents: Int
    public var sends: Int
    /// Events posted a second time in retried batches (the server should count them as duplicates).
    public var duplicateEventsPosted: Int
    /// FCM's Aggregated Delivery Data for the fleet's FCM sends (not part of the JSON figures).
    public var fcmDelivery = FCMDeliveryView()

    /// Sends in the window with this outcome, optionally narrowed by channel, platform, day, browser.
    public func count(
        _ outcome: SendOutcome, channel: String? = nil, platform: Platform? = nil, day: String? = nil,
        browser: Browser? = nil
    ) -> Int {
        outcomesByDay.filter {
            $0.outcome == outcome && (channel == nil || $0.channel == channel)
                && (platform == nil || $0.platform == platform)
                && (day == nil || $0.day == day) && (browser == nil || $0.browser == browser)
        }.reduce(0) { $0 + $1.count }
    }

    /// Unconfirmed sends with this cause, optionally narrowed by channel and platform.
    public func count(_ cause: UnconfirmedCause, channel: String? = nil, platform: Platform? = nil) -> Int {
        causes.filter {
            $0.cause == cause && (channel == nil || $0.channel == channel)
                && (platform == nil || $0.platform == platform)
        }
        .reduce(0) { $0 + $1.count }
    }

    /// Received and opened sends in this latency bucket, optionally narrowed by channel and platform.
    public func count(_ bucket: LatencyBucket, channel: String? = nil, platform: Platform? = nil) -> Int {
        latency.filter {
            $0.bucket == bucket && (channel == nil || $0.channel == channel)
                && (platform == nil || $0.platform == platform)
        }
        .reduce(0) { $0 + $1.count }
    }

    /// The truth as JSON (the `--truth FILE` format): one row per line.
    public func json() -> [UInt8] {
        var w = JSONBytes(capacity: 64 * 1_024)
        w.raw("{")
        w.key("app_id")
        w.string(appID)
        w.field("experiment", experiment)
        w.field("from", time: window.from)
        w.field("to", time: window.to)
        w.field("as_of", time: window.asOf)
        w.field("confirmation_window_hours", int: window.confirmationWindowMs / SimTime.msPerHour)
        w.raw("\n")
        var lists: [(name: StaticString, slices: [String])] = [("instrumented_slices", instrumentedSlices)]
        if !backgroundInstrumentedSlices.isEmpty {
            lists.append(("background_instrumented_slices", backgroundInstrumentedSlices))
        }
        for (name, slices) in lists {
            w.next(name)
            w.raw("[")
            for (i, slice) in slices.enumerated() {
                if i > 0 { w.raw(",") }
                w.string(slice)
            }
            w.raw("]")
        }
        totals(
            "outcomes", by: "outcome",
            outcomesByDay.map {
                (
                    TotalsSlice(
                        channel: $0.channel, platform: $0.platform.rawValue, browser: $0.browser?.rawValue,
                        pushService: $0.pushService?.rawValue),
                    $0.outcome.rawValue, $0.count
                )
            }, into: &w)
        totals(
            "causes", by: "cause",
            causes.map {
                (TotalsSlice(channel: $0.channel, platform: $0.platform.rawValue), $0.cause.rawValue, $0.count)
            },
            into: &w)
        let bucketOrder = { (name: String) in LatencyBucket.allCases.firstIndex { $0.rawValue == name } ?? 0 }
        totals(
            "latency", by: "bucket",
            latency.map {
                (TotalsSlice(channel: $0.channel, platform: $0.platform.rawValue), $0.bucket.rawValue, $0.count)
            },
            valueOrder: bucketOrder, into: &w)
        rows("outcomes_by_day", outcomesByDay, into: &w) { row, w in
            w.key("day")
            w.string(row.day)
            w.field("channel", row.channel)
            w.field("platform", row.platform.rawValue)
            w.field("app_version", nullable: row.appVersion)
            if let pushType = row.pushType { w.field("push_type", pushType) }
            if let browser = row.browser { w.field("browser", browser.rawValue) }
            if let service = row.pushService { w.field("push_service", service.rawValue) }
            w.field("outcome", row.outcome.rawValue)
            w.field("count", int: Int64(row.count))
        }
        rows("rejections", rejections, into: &w) { row, w in
            w.key("provider")
            w.string(row.provider.rawValue)
            w.field("status", int: Int64(row.status))
            w.field("reason", nullable: row.reason)
            w.field("class", row.rejectionClass.rawValue)
            w.field("count", int: Int64(row.count))
        }
        w.raw(",\n")
        w.key("token_invalid")
        w.int(Int64(tokenInvalid))
        w.field("sends_to_known_invalid_tokens", int: Int64(sendsToKnownInvalidTokens))
        rows("cohorts", cohorts, into: &w) { c, w in
            w.key("variant")
            w.string(c.variant)
            w.field("installs", int: Int64(c.installs))
            w.field("prompted", int: Int64(c.prompted))
            w.field("opted_in", int: Int64(c.optedIn))
            w.field("provisional", int: Int64(c.provisional))
            w.field("reach", int: Int64(c.reach))
            w.field("granted_without_prompt", int: Int64(c.grantedWithoutPrompt))
            w.field("retained_7d_eligible", int: Int64(c.retainedEligible))
            w.field("retained_7d", int: Int64(c.retained))
            w.next("median_hours_to_prompt")
            if let median = c.medianHoursToPrompt { w.raw(contentsOf: "\(median)") } else { w.raw("null") }
        }
        w.raw(",\n")
        w.key("ingest")
        w.raw("{")
        w.key("telemetry_events")
        w.int(Int64(telemetryEvents))
        w.field("sends", int: Int64(sends))
        w.field("duplicate_events_posted", int: Int64(duplicateEventsPosted))
        w.raw("},\n")
        w.key("timing")
        w.string(Self.timingNote)
        w.raw("\n}\n")
        return w.bytes
    }

    /// What a total is summed over: channel and platform, and on web the browser and push service.
    struct TotalsSlice: Hashable {
        var channel: String
        var platform: String
        var browser: String? = nil
        var pushService: String? = nil
        var order: [String] { [channel, platform, browser ?? "", pushService ?? ""] }
    }

    /// `,\n"name":[\n{row},\n{row}\n]`
    /// Array `name`: the total of `counts` per slice and `field`, by slice and then the field's
    /// value (in `valueOrder` when given, else by name).
    private func totals(
        _ name: StaticString, by field: StaticString, _ counts: [(TotalsSlice, String, Int)],
        valueOrder: ((String) -> Int)? = nil, into w: inout JSONBytes
    ) {
        struct Key: Hashable {
            var slice: TotalsSlice
            var value: String
        }
        let sums = Dictionary(counts.map { (Key(slice: $0.0, value: $0.1), $0.2) }, uniquingKeysWith: +)
        let keys = sums.keys.sorted { a, b in
            if a.slice != b.slice { return a.slice.order.lexicographicallyPrecedes(b.slice.order) }
            if let valueOrder { return valueOrder(a.value) < valueOrder(b.value) }
            return a.value < b.value
        }
        rows(name, keys, into: &w) { key, w in
            w.key("channel")
            w.string(key.slice.channel)
            w.field("platform", key.slice.platform)
            if let browser = key.slice.browser { w.field("browser", browser) }
            if let service = key.slice.pushService { w.field("push_service", service) }
            w.field(field, key.value)
            w.field("count", int: Int64(sums[key]!))
        }
    }

    private func rows<Row>(
        _ name: StaticString, _ items: [Row], into w: inout JSONBytes, _ write: (Row, inout JSONBytes) -> Void
    ) {
        w.raw(",\n")
        w.key(name)
        w.raw("[")
        for (i, item) in items.enumerated() {
            w.raw(i == 0 ? "\n{" : ",\n{")
            write(item, &w)
            w.raw("}")
        }
        w.raw("\n]")
    }

    static let timingNote =
        "telemetry true times sit at seconds 5-25 of a minute, one event per installation per minute; "
        + "sends at seconds 40-50; window bounds and as_of on whole minutes. The server's corrected time "
        + "is the true time plus the delay between the runner stamping sent_at and the server stamping "
        + "received_at, so every count holds while that delay stays under 15 s."
}
