import PushLedgerCore

/// The report window the truth is computed for (ms since the epoch).
public struct TruthWindow: Sendable, Equatable {
    public var from: Int64
    public var to: Int64
    public var asOf: Int64
    public var confirmationWindowMs: Int64
    public init(from: Int64, to: Int64, asOf: Int64, confirmationWindowMs: Int64 = 86_400_000) {
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
        public var outcome: SendOutcome
        public var count: Int
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
    }

    public var appID: String
    public var experiment: String
    public var window: TruthWindow
    /// "platform/app_version" slices with a `notification_received` in the window.
    public var instrumentedSlices: [String]
    public var outcomesByDay: [OutcomeCount]
    public var rejections: [RejectionCount]
    public var tokenInvalid: Int
    public var sendsToKnownInvalidTokens: Int
    public var cohorts: [Cohort]
    /// Distinct telemetry events and sends generated (what the server should store).
    public var telemetryEvents: Int
    public var sends: Int
    /// Events posted a second time in retried batches (the server should count them as duplicates).
    public var duplicateEventsPosted: Int

    /// Sends in the window with this outcome, optionally narrowed by channel, platform, day.
    public func count(_ outcome: SendOutcome, channel: String? = nil, platform: Platform? = nil, day: String? = nil) -> Int {
        outcomesByDay.filter {
            $0.outcome == outcome && (channel == nil || $0.channel == channel) && (platform == nil || $0.platform == platform)
                && (day == nil || $0.day == day)
        }.reduce(0) { $0 + $1.count }
    }

    /// The truth as JSON (the `--truth FILE` format).
    public func json() -> [UInt8] {
        var w = JSONBytes(capacity: 64 * 1_024)
        w.raw("{\n  \"app_id\": ")
        w.string(appID)
        w.raw(",\n  \"from\": ")
        w.time(window.from)
        w.raw(",\n  \"to\": ")
        w.time(window.to)
        w.raw(",\n  \"as_of\": ")
        w.time(window.asOf)
        w.raw(",\n  \"confirmation_window_hours\": ")
        w.int(window.confirmationWindowMs / SimTime.msPerHour)
        w.raw(",\n  \"instrumented_slices\": [")
        for (i, slice) in instrumentedSlices.enumerated() {
            if i > 0 { w.raw(", ") }
            w.string(slice)
        }
        w.raw("],\n  \"outcomes\": [")
        let totals = Dictionary(grouping: outcomesByDay) { "\($0.channel)\t\($0.platform.rawValue)\t\($0.outcome.rawValue)" }
        for (i, key) in totals.keys.sorted().enumerated() {
            let parts = key.split(separator: "\t").map(String.init)
            w.raw(i == 0 ? "\n    {\"channel\": " : ",\n    {\"channel\": ")
            w.string(parts[0])
            w.raw(", \"platform\": ")
            w.string(parts[1])
            w.raw(", \"outcome\": ")
            w.string(parts[2])
            w.raw(", \"count\": ")
            w.int(Int64(totals[key]!.reduce(0) { $0 + $1.count }))
            w.raw("}")
        }
        w.raw("\n  ],\n  \"outcomes_by_day\": [")
        for (i, row) in outcomesByDay.enumerated() {
            w.raw(i == 0 ? "\n    {\"day\": " : ",\n    {\"day\": ")
            w.string(row.day)
            w.raw(", \"channel\": ")
            w.string(row.channel)
            w.raw(", \"platform\": ")
            w.string(row.platform.rawValue)
            w.raw(", \"app_version\": ")
            if let v = row.appVersion { w.string(v) } else { w.raw("null") }
            w.raw(", \"outcome\": ")
            w.string(row.outcome.rawValue)
            w.raw(", \"count\": ")
            w.int(Int64(row.count))
            w.raw("}")
        }
        w.raw("\n  ],\n  \"rejections\": [")
        for (i, row) in rejections.enumerated() {
            w.raw(i == 0 ? "\n    {\"provider\": " : ",\n    {\"provider\": ")
            w.string(row.provider.rawValue)
            w.raw(", \"status\": ")
            w.int(Int64(row.status))
            w.raw(", \"reason\": ")
            if let r = row.reason { w.string(r) } else { w.raw("null") }
            w.raw(", \"class\": ")
            w.string(row.rejectionClass.rawValue)
            w.raw(", \"count\": ")
            w.int(Int64(row.count))
            w.raw("}")
        }
        w.raw("\n  ],\n  \"token_invalid\": ")
        w.int(Int64(tokenInvalid))
        w.raw(",\n  \"sends_to_known_invalid_tokens\": ")
        w.int(Int64(sendsToKnownInvalidTokens))
        w.raw(",\n  \"cohorts\": [")
        for (i, c) in cohorts.enumerated() {
            w.raw(i == 0 ? "\n    {\"experiment\": " : ",\n    {\"experiment\": ")
            w.string(experiment)
            w.raw(", \"variant\": ")
            w.string(c.variant)
            for (name, value) in [("installs", c.installs), ("prompted", c.prompted), ("opted_in", c.optedIn),
                                  ("provisional", c.provisional), ("reach", c.reach), ("granted_without_prompt", c.grantedWithoutPrompt)] {
                w.raw(", ")
                w.string(name)
                w.raw(": ")
                w.int(Int64(value))
            }
            w.raw("}")
        }
        w.raw("\n  ],\n  \"ingest\": {\"telemetry_events\": ")
        w.int(Int64(telemetryEvents))
        w.raw(", \"sends\": ")
        w.int(Int64(sends))
        w.raw(", \"duplicate_events_posted\": ")
        w.int(Int64(duplicateEventsPosted))
        w.raw("},\n  \"timing\": ")
        w.string(Self.timingNote)
        w.raw("\n}\n")
        return w.bytes
    }

    static let timingNote =
        "telemetry true times sit at seconds 5-25 of a minute, one event per installation per minute; "
        + "sends at seconds 40-50; window bounds and as_of on whole minutes. The server's corrected time "
        + "is the true time plus the delay between the runner stamping sent_at and the server stamping "
        + "received_at, so every count holds while that delay stays under 15 s."
}
