import Foundation
import OutcomeEngine
import PushLedgerContract
import PushLedgerRules
import PushLedgerSupport
import TableRendering

extension WeeklyReport {
    /// Every section with this week's and last week's figures and the change (counts as a
    /// difference, rates in percentage points as `<rate>_pp`).
    public var json: JSONValue {
        let fields: [(String, JSONValue)] =
            [
                ("app", .string(app)),
                ("week", .string(week.description)),
                ("from", .string(Display.timestamp(week.start()))),
                ("to", .string(Display.timestamp(week.end()))),
                ("as_of", .string(Display.timestamp(asOf))),
            ] + rollups.jsonFields + [
                ("headline", Self.sliceJSON(headline)),
                ("channels", .array(channels.map(Self.sliceJSON))),
                ("platforms", .array(platforms.map(Self.sliceJSON))),
                (
                    "web",
                    .object([
                        ("browsers", .array(browsers.map(Self.sliceJSON))),
                        ("push_services", .array(pushServices.map(Self.sliceJSON))),
                    ])
                ),
                ("why_unconfirmed", whyUnconfirmedJSON),
                (
                    "cannot_confirm",
                    .array(
                        cannotConfirm.map { r in
                            .object([
                                ("provider", .string(r.provider)), ("push_type", .text(r.pushType)),
                                ("message_kind", .text(r.messageKind)), ("unconfirmable", .int(r.unconfirmable)),
                                ("to_measure", .string(r.change)),
                            ])
                        })
                ),
                ("latency", latencyJSON),
                (
                    "rejections",
                    .array(
                        rejections.map { r in
                            .object([
                                ("provider", .string(r.provider)), ("reason_class", .string(r.reasonClass)),
                                ("reason", .text(r.reason)),
                                ("current", .int(r.current)), ("previous", .int(r.previous)),
                                ("change", .int(r.current - r.previous)),
                            ])
                        })
                ),
                (
                    "token_hygiene",
                    .object([
                        (
                            "tokens_invalidated",
                            Self.changeJSON(headline.current.tokenInvalid, headline.previous.tokenInvalid)
                        ),
                        (
                            "sends_to_known_invalid_tokens",
                            Self.changeJSON(headline.current.toInvalidToken, headline.previous.toInvalidToken)
                        ),
                    ])
                ),
                ("link_hosts", .array(linkHosts.map(Self.linkHostJSON))),
                (
                    "landing",
                    .array(
                        landings.map { l in
                            .object([
                                ("channel", .string(l.channel)), ("campaign", .text(l.campaign)),
                                ("current", Self.landingJSON(l.current)), ("previous", Self.landingJSON(l.previous)),
                                (
                                    "misrouted_open_rate_pp",
                                    .number(Self.pointChange(l.current.misroutedRate, l.previous.misroutedRate))
                                ),
                            ])
                        })
                ),
                ("provider_check", hasFCMData ? providerCheck?.json.objectValue?["rows"] ?? .null : .null),
                ("prompt_timing", promptTiming.json),
                ("prompt_timing_previous_week", previousPromptTiming.json),
                (
                    "alerts",
                    alerts.map { list in
                        .array(
                            list.map { a in
                                .object([
                                    ("rule", .string(a.rule)), ("slice", .string(a.slice)),
                                    ("at", .string(Display.timestamp(a.at))),
                                    ("current_rate", .number(a.currentRate)),
                                    ("baseline_rate", .number(a.baselineRate)),
                                    ("delta_pp", .number(a.deltaPoints)), ("p_value", .number(a.pValue)),
                                    ("message", .string(a.message)),
                                ])
                            })
                    } ?? .null
                ),
                ("alerts_note", .string(alerts == nil ? "alerting not set up" : "alerts that fired this week")),
            ]
        guard isFleet else { return .object(fields) }
        return .object(
            fields.filter { !Self.perAppFields.contains($0.0) } + [("per_app_only", .string(Self.perAppNote))])
    }

    /// The JSON fields of the sections that belong to one app, left out of a fleet-wide report.
    static let perAppFields: Set = [
        "link_hosts", "provider_check", "prompt_timing", "prompt_timing_previous_week", "alerts", "alerts_note",
    ]

    static func pointChange(_ current: Rate, _ previous: Rate) -> Double? {
        current.value.flatMap { c in previous.value.map { (c - $0) * 100 } }
    }

    static func changeJSON(_ current: Int, _ previous: Int) -> JSONValue {
        .object([("current", .int(current)), ("previous", .int(previous)), ("change", .int(current - previous))])
    }

    static func sliceJSON(_ slice: Slice) -> JSONValue {
        var change: [(String, JSONValue)] = [
            ("sends", .int(slice.current.sends - slice.previous.sends)),
            ("accepted", .int(slice.current.accepted - slice.previous.accepted)),
        ]
        change += zip(slice.current.namedRates, slice.previous.namedRates).map { current, previous in
            (current.name + "_pp", .number(pointChange(current.rate, previous.rate)))
        }
        if let current = slice.current.causes {
            change += zip(current.namedRates, (slice.previous.causes ?? CauseCounts()).namedRates).map {
                current, previous in
                (current.name + "_pp", .number(pointChange(current.rate, previous.rate)))
            }
        }
        return .object([
            ("name", .string(slice.name)), ("current", .object(slice.current.jsonFields)),
            ("previous", .object(slice.previous.jsonFields)), ("change", .object(change)),
        ])
    }

    static func landingJSON(_ l: Landing) -> JSONValue {
        .object([
            ("opens", .int(l.opens)), ("landed_reported", .int(l.landedReported)), ("misrouted", .int(l.misrouted)),
            ("misrouted_open_rate", .number(l.misroutedRate.value)),
        ])
    }
}
