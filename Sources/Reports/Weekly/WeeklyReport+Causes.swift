import Foundation
import OutcomeEngine
import Postgres
import PushLedgerRules
import PushLedgerSupport
import TableRendering

/// The weekly report's "Why unconfirmed" and "Delivery latency" sections (docs/metrics.md "Why a
/// send is unconfirmed", "Delivery latency"), per platform and channel, this week beside the last.
extension WeeklyReport {
    /// One platform and channel's causes and latency buckets this week and the week before.
    public struct CauseSlice: Sendable, Equatable {
        public var platform: String
        public var channel: String
        public var current: CauseCounts
        public var previous: CauseCounts
        public var name: String { "\(platform) \(channel)" }
    }

    /// Cause and latency counts per (platform, channel) over this week and the previous one.
    static func causeSlices(
        _ connection: Connection, _ scope: ReportScope, _ week: ISOWeek
    ) throws(ReportError) -> [CauseSlice] {
        struct Read {
            var week: ISOWeek
            var platform: String
            var channel: String
            var counts: CauseCounts
        }
        let totals = scope.rows(keys: totalsKeys, sums: OutcomeCounts.summedColumns) { app in
            """
            pushledger_rollup_totals(\(app), \(Display.day(week.previous.start()))::date,
                                     \(Display.day(week.end()))::date, '{week,platform,channel}')
            """
        }
        let query: SQL = """
            select week::timestamp at time zone 'UTC' as week, platform, channel, accepted, \
            \(unsafeRaw: CauseCounts.sqlColumns)
              from \(totals)
            """
        let rows = try databaseStep("reading cause rollups") { () throws(PostgresError) -> [Read] in
            var rows: [Read] = []
            for row in try connection.query(query) {
                let start: Date = try row.decode("week")
                let accepted: Int = try row.decode("accepted")
                rows.append(
                    Read(
                        week: ISOWeek(containing: start), platform: try row.decode("platform"),
                        channel: try row.decode("channel"),
                        counts: try CauseCounts(row: row, accepted: accepted)))
            }
            return rows
        }
        var keys: [(String, String)] = []
        for row in rows where !keys.contains(where: { $0 == (row.platform, row.channel) }) {
            keys.append((row.platform, row.channel))
        }
        keys.sort { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
        func counts(_ w: ISOWeek, _ key: (String, String)) -> CauseCounts {
            rows.first { $0.week == w && $0.platform == key.0 && $0.channel == key.1 }?.counts ?? CauseCounts()
        }
        return keys.map {
            CauseSlice(platform: $0.0, channel: $0.1, current: counts(week, $0), previous: counts(week.previous, $0))
        }
    }

    /// The whole app's causes this week and last (the headline's), as a slice named "all".
    var allCauses: CauseSlice {
        CauseSlice(
            platform: "all", channel: "", current: headline.current.causes ?? CauseCounts(),
            previous: headline.previous.causes ?? CauseCounts())
    }

    private static let causeLabels: [UnconfirmedCause: String] = [
        .superseded: "superseded", .appStopped: "app stopped", .expired: "expired", .deviceInactive: "device inactive",
        .unexplained: "unexplained",
    ]
    private static let bucketLabels: [LatencyBucket: String] = [
        .lt10s: "<10s", .lt1m: "<1m", .lt10m: "<10m", .lt1h: "<1h", .lt6h: "<6h", .lt24h: "<24h", .ge24h: "≥24h",
    ]

    var causeTable: ReportTable {
        let columns =
            ["platform", "channel", "accepted", "unconfirmed"] + UnconfirmedCause.allCases.map { Self.causeLabels[$0]! }
            + ["unexpl. prev", "Δ", "moved most"]
        let rows = ([allCauses] + causeSlices).map { slice -> [Cell] in
            let (c, p) = (slice.current, slice.previous)
            var cells: [Cell] = [
                .text(slice.platform), .text(slice.channel), .integer(c.accepted),
                Display.rate(Rate(UnconfirmedCause.allCases.reduce(0) { $0 + c.count($1) }, of: c.accepted)),
            ]
            cells += UnconfirmedCause.allCases.map { Display.rate(c.rate($0)) }
            cells += [
                Display.rate(p.rate(.unexplained)), Display.change(c.rate(.unexplained), from: p.rate(.unexplained)),
            ]
            cells.append(
                c.mostMoved(since: p).map { .text("\($0.cause.rawValue) \(Display.points($0.points))") } ?? .null)
            return cells
        }
        return ReportTable(
            title: "Why unconfirmed", columns: columns, rows: rows,
            notes: [
                """
                rates of accepted sends; the causes partition unconfirmed (docs/metrics.md \"Why a send is \
                unconfirmed\")
                """,
                """
                causes are evidence from what devices and senders reported, not certainty; unexplained is the \
                loss to chase
                """,
            ],
            key: ["platform", "channel", "unconfirmed"] + UnconfirmedCause.allCases.map { Self.causeLabels[$0]! } + [
                "Δ"
            ])
    }

    var latencyTable: ReportTable {
        let buckets = LatencyBucket.allCases.map { Self.bucketLabels[$0]! }
        let columns =
            ["platform", "channel", "confirmed"] + buckets + ["late share", "prev", "Δ", "p50", "p90", "p99"]
        let rows = ([allCauses] + causeSlices).map { slice -> [Cell] in
            let (c, p) = (slice.current, slice.previous)
            var cells: [Cell] = [.text(slice.platform), .text(slice.channel), .integer(c.confirmed)]
            cells += LatencyBucket.allCases.map { Display.rate(Rate(c.count($0), of: c.confirmed)) }
            cells += Self.rateCells(c.lateShare, p.lateShare)
            cells += [500, 900, 990].map { c.percentileBucket(perMille: $0).map { .text($0.rawValue) } ?? .null }
            return cells
        }
        return ReportTable(
            title: "Delivery latency", columns: columns, rows: rows,
            notes: [
                """
                time from send to the first receipt of received and opened sends, as shares of them; late: an \
                hour or more
                """,
                "p50/p90/p99: the bucket holding that percentile",
            ],
            key: ["platform", "channel", "confirmed", "<1m", "<1h", "≥24h", "late share", "Δ", "p50", "p90"])
    }

    /// Cause rates of accepted per platform and channel, the previous week's bar above this week's.
    var causeChart: String {
        SVGChart.stacked(
            title: "Causes of unconfirmed sends per platform and channel, week over week",
            rows: ([allCauses] + causeSlices).flatMap { slice in
                [(slice.current, week), (slice.previous, week.previous)].reversed().map { counts, w in
                    (
                        "\(slice.name) \(String(w.description.suffix(3)))",
                        UnconfirmedCause.allCases.map { counts.rate($0).value ?? 0 }
                    )
                }
            },
            legend: UnconfirmedCause.allCases.map(\.rawValue))
    }

    /// Latency bucket shares per platform and channel, the previous week's bar above this week's.
    var latencyChart: String {
        SVGChart.stacked(
            title: "Time to receipt per platform and channel, week over week",
            rows: ([allCauses] + causeSlices).flatMap { slice in
                [(slice.current, week), (slice.previous, week.previous)].reversed().map { counts, w in
                    (
                        "\(slice.name) \(String(w.description.suffix(3)))",
                        LatencyBucket.allCases.map { Rate(counts.count($0), of: counts.confirmed).value ?? 0 }
                    )
                }
            },
            legend: LatencyBucket.allCases.map(\.rawValue))
    }

    /// `{platform, channel, current, previous, change}` per slice, the whole app first (platform "all").
    func causeJSON(
        fields: (CauseCounts) -> [(String, JSONValue)], change: (CauseCounts, CauseCounts) -> [(String, JSONValue)]
    ) -> JSONValue {
        var list: [JSONValue] = []
        for slice in [allCauses] + causeSlices {
            let channel: JSONValue = slice.channel.isEmpty ? .null : .string(slice.channel)
            let members: [(String, JSONValue)] = [
                ("platform", .string(slice.platform)), ("channel", channel),
                ("current", .object(fields(slice.current))),
                ("previous", .object(fields(slice.previous))),
                ("change", .object(change(slice.current, slice.previous))),
            ]
            list.append(.object(members))
        }
        return .array(list)
    }

    var whyUnconfirmedJSON: JSONValue {
        causeJSON(
            fields: { c in
                var fields: [(String, JSONValue)] = [("accepted", .int(c.accepted))]
                for cause in UnconfirmedCause.allCases { fields.append((cause.rawValue, .int(c.count(cause)))) }
                for cause in UnconfirmedCause.allCases {
                    fields.append((cause.rawValue + "_rate", .number(c.rate(cause).value)))
                }
                return fields
            },
            change: { c, p in
                var fields: [(String, JSONValue)] = []
                for cause in UnconfirmedCause.allCases {
                    fields.append(
                        (cause.rawValue + "_rate_pp", .number(Self.pointChange(c.rate(cause), p.rate(cause)))))
                }
                let moved: JSONValue = c.mostMoved(since: p).map { .string($0.cause.rawValue) } ?? .null
                fields.append(("moved_most", moved))
                return fields
            })
    }

    var latencyJSON: JSONValue {
        causeJSON(
            fields: { c in
                var fields: [(String, JSONValue)] = [("confirmed", .int(c.confirmed))]
                for bucket in LatencyBucket.allCases {
                    fields.append((CauseCounts.column(bucket), .int(c.count(bucket))))
                }
                fields.append(("late_share", .number(c.lateShare.value)))
                for named in c.namedBuckets { fields.append((named.name, .text(named.bucket?.rawValue))) }
                return fields
            },
            change: { c, p in [("late_share_pp", .number(Self.pointChange(c.lateShare, p.lateShare)))] })
    }
}

extension SVGChart {
    /// One horizontal bar per row, its segments stacked in legend order and scaled to the
    /// largest row's total; each segment carries its value as a tooltip.
    static func stacked(title: String, rows: [(label: String, segments: [Double])], legend: [String]) -> String {
        let width = 640, rowH = 22.0, labelW = 200.0, valueW = 70.0, top = 30.0
        let height = Int(top + max(1, Double(rows.count)) * rowH + 10)
        let maxTotal = max(rows.map { $0.segments.reduce(0, +) }.max() ?? 0, 1e-9)
        let plotW = Double(width) - labelW - valueW
        var svg =
            """
            <svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" \
            preserveAspectRatio=\"xMidYMid meet\">
            """
            + "<title>\(escape(title))</title>"
        var lx = 8.0
        for (i, name) in legend.enumerated() {
            svg +=
                "<rect x=\"\(number(lx))\" y=\"6\" width=\"10\" height=\"10\" fill=\"\(palette[i % palette.count])\"/>"
            svg += "<text x=\"\(number(lx + 14))\" y=\"15\" class=\"label\">\(escape(name))</text>"
            lx += 24 + Double(name.count) * 7
        }
        for (r, row) in rows.enumerated() {
            let y = top + Double(r) * rowH
            svg +=
                """
                <text x=\"\(number(labelW - 8))\" y=\"\(number(y + 15))\" text-anchor=\"end\" \
                class=\"label\">\(escape(row.label))</text>
                """
            var x = labelW
            for (i, value) in row.segments.enumerated() where value > 0 {
                let w = plotW * value / maxTotal
                svg +=
                    """
                    <rect x=\"\(number(x))\" y=\"\(number(y + 3))\" width=\"\(number(max(w, 0.5)))\" \
                    height=\"\(number(rowH - 7))\" fill=\"\(palette[i % palette.count])\">
                    """
                    + "<title>\(escape(row.label)) \(escape(legend[i])): \(Display.percent(value))</title></rect>"
                x += w
            }
            svg +=
                """
                <text x=\"\(number(x + 6))\" y=\"\(number(y + 15))\" \
                class=\"value\">\(escape(Display.percent(row.segments.reduce(0, +))))</text>
                """
        }
        if rows.isEmpty {
            svg +=
                """
                <text x=\"\(width / 2)\" y=\"\(number(top + 16))\" text-anchor=\"middle\" class=\"axis\">no \
                sends</text>
                """
        }
        return svg + "</svg>"
    }
}
