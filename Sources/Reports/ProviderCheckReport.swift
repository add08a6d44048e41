import Foundation
import OutcomeEngine
import Postgres
import PushLedgerRules
import PushLedgerSupport
import TableRendering

/// `report provider-check`: FCM's Aggregated Delivery Data beside what devices confirmed, per
/// FCM day (America/Los_Angeles) and optionally per campaign (metrics.md "Provider cross-check").
public struct ProviderCheckReport: Sendable, Equatable {
    /// FCM's days are Los Angeles days.
    public static let timeZone = TimeZone(identifier: "America/Los_Angeles")!

    /// FCM's side of one row, as imported (percents 0–100, weighted by messages accepted).
    public struct FCMSide: Sendable, Equatable {
        public var countMessagesAccepted: Int
        public var percents: [(name: String, value: Double?)]
        public var deliveredPct: Double? { percents.first { $0.name == "delivered_pct" }?.value ?? nil }

        public static func == (a: FCMSide, b: FCMSide) -> Bool {
            a.countMessagesAccepted == b.countMessagesAccepted && a.percents.map(\.name) == b.percents.map(\.name)
                && a.percents.map(\.value) == b.percents.map(\.value)
        }
    }

    public struct Row: Sendable, Equatable {
        public var day: CivilDate
        public var campaign: String?
        public var fcm: FCMSide?
        /// PushLedger's FCM sends of the same window; nil when there were none.
        public var devices: OutcomeCounts?

        /// `delivered_pct` − 100 × `confirmed_delivery_rate`; nil when either side is missing.
        public var gapPoints: Double? {
            guard let delivered = fcm?.deliveredPct, let confirmed = devices?.confirmedDeliveryRate.value else {
                return nil
            }
            return delivered - 100 * confirmed
        }

        /// FCM's percent beside PushLedger's cause rate that answers it (both of accepted, in
        /// percent): collapsed / superseded, dropped app force-stopped / app_stopped, dropped
        /// device inactive / device_inactive.
        public var causePairs: [(fcm: String, fcmPercent: Double?, cause: UnconfirmedCause, rate: Rate?)] {
            ProviderCheckReport.causePairs.map { pair in
                (
                    pair.fcm, fcm?.percents.first { $0.name == pair.fcm }?.value ?? nil, pair.cause,
                    devices?.causes?.rate(pair.cause)
                )
            }
        }

        /// The counters whose sends make up the silent-loss part of the gap.
        static let gapCounters: [OutcomeCounter] = [.blockedApp, .blockedChannel, .unconfirmed]

        /// The silent-loss parts of the gap, in percentage points of accepted.
        public var gapParts: [(name: String, points: Double?)] {
            let accepted = devices?.accepted ?? 0
            func points(_ n: Int?) -> Double? {
                accepted > 0 && fcm != nil ? n.map { 100 * Double($0) / Double(accepted) } : nil
            }
            return Self.gapCounters.map { ($0.rawValue + "_pp", points(devices?[$0])) }
        }
    }

    public var app: String
    public var from: CivilDate
    public var to: CivilDate
    public var byCampaign: Bool
    public var rows: [Row]

    /// FCM's outcome percents and the causes they correspond to.
    static let causePairs: [(fcm: String, cause: UnconfirmedCause)] = [
        ("collapsed_pct", .superseded), ("dropped_app_force_stopped_pct", .appStopped),
        ("dropped_device_inactive_pct", .deviceInactive),
    ]

    static let percentColumns = [
        "delivered_pct", "pending_pct", "collapsed_pct", "dropped_too_many_pending_pct",
        "dropped_app_force_stopped_pct",
        "dropped_device_inactive_pct", "delivered_no_delay_pct",
    ]

    /// Los Angeles days [from, to), evaluated as of `asOf` with the confirmation window.
    public static func run(
        connection: Connection, app: String, from: CivilDate, to: CivilDate, byCampaign: Bool, asOf: Date = Date(),
        confirmationWindow: TimeInterval = 86_400
    ) throws(ReportError) -> ProviderCheckReport {
        guard from < to else { throw ReportError.invalidQuery("--from must be before --to") }
        guard to.daysSinceEpoch - from.daysSinceEpoch <= 366 else {
            throw ReportError.invalidQuery("at most 366 days at once")
        }
        let rows = try databaseStep("comparing FCM delivery data with devices") {
            try connection.query(
                OutcomeCounts.withRates(
                    """
                    select day::text as day, *
                      from pushledger_provider_check(\(app), \(from.iso)::date, \(to.iso)::date, \(byCampaign), \(asOf),
                                                     make_interval(secs => \(confirmationWindow)))
                    """
                )
            ).map { row -> Row in
                let dayText: String = try row.decode("day")
                let parts = dayText.split(separator: "-").compactMap { Int($0) }
                let day = CivilDate(year: parts[0], month: parts[1], day: parts[2])!
                var fcm: FCMSide?
                if let entries = try row.decode("fcm_entries", as: Int?.self), entries > 0 {
                    fcm = FCMSide(
                        countMessagesAccepted: try row.decode("count_messages_accepted"),
                        percents: try percentColumns.map { ($0, try row.decode($0, as: Double?.self)) })
                }
                let sends = try row.decode("sends", as: Int?.self)
                return Row(
                    day: day, campaign: try row.decode("campaign"), fcm: fcm,
                    devices: sends == nil ? nil : try OutcomeCounts(row: row, causes: true))
            }
        }
        return ProviderCheckReport(app: app, from: from, to: to, byCampaign: byCampaign, rows: rows)
    }

    /// `{"rows": [...]}` with metrics.md's names; a missing side's fields are null.
    public var json: JSONValue {
        .object([
            (
                "rows",
                .array(
                    rows.map { row in
                        var fields: [(String, JSONValue)] = [("day", .string(row.day.iso))]
                        if byCampaign { fields.append(("campaign", .text(row.campaign))) }
                        fields.append(
                            ("count_messages_accepted", row.fcm.map { .int($0.countMessagesAccepted) } ?? .null))
                        for name in Self.percentColumns {
                            fields.append((name, .number(row.fcm?.percents.first { $0.name == name }?.value ?? nil)))
                        }
                        let counts = OutcomeCounts().namedCounts.map(\.name)
                        for (i, name) in counts.enumerated() {
                            fields.append((name, row.devices.map { .int($0.namedCounts[i].count) } ?? .null))
                        }
                        fields.append(
                            ("confirmed_delivery_rate", .number(row.devices?.confirmedDeliveryRate.value ?? nil)))
                        fields.append(("silent_loss_rate", .number(row.devices?.silentLossRate.value ?? nil)))
                        for pair in row.causePairs {
                            fields.append(
                                (
                                    pair.cause.rawValue,
                                    row.devices.map { .int($0.causes?.count(pair.cause) ?? 0) } ?? .null
                                ))
                            fields.append((pair.cause.rawValue + "_rate", .number(pair.rate?.value ?? nil)))
                        }
                        fields.append(("gap_pp", .number(row.gapPoints)))
                        for part in row.gapParts { fields.append((part.name, .number(part.points))) }
                        return .object(fields)
                    })
            )
        ])
    }

    public func table(for format: ReportFormat) -> ReportTable {
        let raw = format == .csv
        func pct(_ v: Double?) -> Cell { v.map { raw ? .text("\($0)") : .percent($0 / 100, digits: 1) } ?? .null }
        // Cell.points takes a difference of fractions; these are already in points.
        func pp(_ v: Double?) -> Cell { v.map { raw ? .text("\($0)") : .points($0 / 100, digits: 1) } ?? .null }
        func rate(_ r: Rate?) -> Cell { raw ? Display.fraction(r) : r?.value.map { .percent($0, digits: 1) } ?? .null }
        var columns = ["day"] + (byCampaign ? ["campaign"] : [])
        // Short names keep the terminal table within 120 columns; JSON and CSV carry metrics.md's names.
        columns +=
            raw
            ? [
                "count_messages_accepted", "delivered_pct", "sends", "accepted", "confirmed_delivery_rate", "gap_pp",
            ] + Row.gapCounters.map { $0.rawValue + "_pp" }
            : ["fcm_n", "fcm_delivered", "sends", "accepted", "confirmed", "gap_pp", "app_pp", "chan_pp", "unconf_pp"]
        // CSV: FCM's drop reasons beside the causes that answer them (the terminal's second table)
        if raw { columns += Self.causePairs.flatMap { [$0.fcm, $0.cause.rawValue + "_rate"] } }
        return ReportTable(
            title: "Provider says vs devices say (FCM)", columns: columns,
            rows: rows.map { row in
                var cells: [Cell] = [.text(row.day.iso)]
                if byCampaign { cells.append(row.campaign.map(Cell.text) ?? (raw ? .null : "(none)")) }
                cells += [
                    row.fcm.map { .integer($0.countMessagesAccepted) } ?? .null, pct(row.fcm?.deliveredPct),
                    row.devices.map { .integer($0.sends) } ?? .null, row.devices.map { .integer($0.accepted) } ?? .null,
                    rate(row.devices?.confirmedDeliveryRate), pp(row.gapPoints),
                ]
                cells += row.gapParts.map { pp($0.points) }
                if raw { for pair in row.causePairs { cells += [pct(pair.fcmPercent), rate(pair.rate)] } }
                return cells
            },
            notes: [
                """
                FCM days: America/Los_Angeles days [\(from.iso), \(to.iso)); FCM samples opted-in devices: \
                compare rates
                """,
                """
                gap_pp = FCM delivered % − confirmed delivery %, split into blocked app / channel and unconfirmed \
                (pp)
                """,
            ]
                + (rows.isEmpty
                    ? [
                        "no FCM data or FCM sends in these days; import FCM's with:",
                        "  pushledger import fcm-delivery-data FILE --app \(app) --fcm-app-id 1:…:android:…",
                    ] : []))
    }

    /// FCM's drop reasons beside the causes of unconfirmed sends that answer them, per day: what
    /// FCM saw replaced, dropped for a force-stopped app or an inactive device, against what the
    /// devices' telemetry says (the terminal's and Markdown's second table).
    public func causeTable() -> ReportTable {
        func pct(_ v: Double?) -> Cell { v.map { .percent($0 / 100, digits: 1) } ?? .null }
        var columns = ["day"] + (byCampaign ? ["campaign"] : [])
        columns += [
            "fcm_collapsed", "superseded", "fcm_force_stopped", "app_stopped", "fcm_device_inactive", "device_inactive",
        ]
        return ReportTable(
            title: "FCM drop reasons vs causes of unconfirmed sends", columns: columns,
            rows: rows.map { row in
                var cells: [Cell] = [.text(row.day.iso)]
                if byCampaign { cells.append(row.campaign.map(Cell.text) ?? "(none)") }
                for pair in row.causePairs {
                    cells += [pct(pair.fcmPercent), pair.rate.map { Display.rate($0) } ?? .null]
                }
                return cells
            },
            notes: [
                "percent of accepted FCM sends; FCM's figures are sampled, PushLedger's causes are evidence from "
                    + "what devices reported (docs/metrics.md \"Why a send is unconfirmed\")"
            ])
    }

    /// Renders in `table`, `json`, `csv` or `markdown`.
    public func rendered(_ format: ReportFormat, columns: ColumnChoice = .key) throws(ReportError) -> String {
        switch format {
        case .json: return json.jsonText(pretty: true) + "\n"
        case .csv: return table(for: .csv).table.csv()
        case .table, .markdown:
            let tables = [table(for: format), causeTable()]
            let choice = try columns.checked(tables)
            return tables.map { $0.rendered(format.tableFormat!, columns: choice) }.joined(separator: "\n")
        case .html, .text: throw ReportError.unsupported(format, report: "report provider-check")
        }
    }
}
