import Foundation
import OutcomeEngine
import Postgres
import PushLedgerRules
import PushLedgerSupport
import TableRendering

/// `report silent-loss`: outcome counts and rates per slice of the chosen dimensions
/// (docs/metrics.md "Outcome of one send attempt" and "Rates"), classified over the exact window.
public struct SilentLossReport: Sendable, Equatable {
    /// One slice: its dimension values (nil is a real null, e.g. a batch without app_version).
    public struct Row: Sendable, Equatable {
        public var values: [ReportDimension: String?]
        public var counts: OutcomeCounts
    }

    public let query: ReportQuery
    public let dimensions: [ReportDimension]
    public let rows: [Row]
    /// Who answered: the rollups or the outcome engine.
    public let answer: Answer

    /// Classifies the window's sends and groups them by `dimensions` (none: one total row, or
    /// no row when the window holds no send). `source` picks who answers (``plan(_:_:asOf:window:)``):
    /// the engine as of `query.asOf`, or the rollups as of their latest refresh (then the
    /// report's as-of is theirs).
    public static func run(
        connection: Connection, query: ReportQuery, by dimensions: [ReportDimension] = [],
        source: ReportSource = .engine
    ) throws(ReportError) -> SilentLossReport {
        let (query, answer) = try plan(connection, source, asOf: query.asOf) { asOf in
            var query = query
            query.asOf = asOf
            return query
        }
        return try read(connection, query, answer, by: dimensions)
    }

    /// The report of `query` as `answer` says: from the rollups or the engine; `scope`: the
    /// query's app (the default) or every app of a fleet.
    static func read(
        _ connection: Connection, _ query: ReportQuery, _ answer: Answer, by dimensions: [ReportDimension],
        scope: ReportScope? = nil
    ) throws(ReportError) -> SilentLossReport {
        let source = answer.isRollups ? "rollups" : "engine"
        let by = dimensions.map(\.rawValue).joined(separator: ",")
        let slices = (scope ?? .app(query.app)).rows(keys: Self.sliceColumns, sums: OutcomeCounts.summedColumns) {
            app in
            """
            pushledger_silent_loss(\(app), \(query.from), \(query.to), \(query.asOf), \(query.windowInterval)::interval,
                                   string_to_array(\(by), ','), \(source))
            """
        }
        let rows = try databaseStep(answer.isRollups ? "reading rollups" : "classifying sends") {
            try connection.query(
                OutcomeCounts.withRates(
                    """
                    select channel, platform, app_version, campaign, day::text as day, provider,
                           os_version, sdk_int::text as sdk_int, standby_bucket, background_restricted::text as \
                    background_restricted,
                           ignoring_battery_optimizations::text as ignoring_battery_optimizations, \
                    low_power_mode::text as low_power_mode, push_type, message_kind, browser, push_service,
                           \(unsafeRaw: OutcomeCounts.sqlColumns), \(unsafeRaw: CauseCounts.sqlColumns)
                      from \(slices)
                    """
                )
            ).map { row in
                var values: [ReportDimension: String?] = [:]
                for dimension in dimensions { values[dimension] = try row.decode(dimension.rawValue, as: String?.self) }
                return Row(values: values, counts: try OutcomeCounts(row: row, causes: true))
            }
        }
        return SilentLossReport(query: query, dimensions: dimensions, rows: rows, answer: answer)
    }

    /// The slice columns of `pushledger_silent_loss`, in its order.
    static let sliceColumns = [
        "channel", "platform", "app_version", "campaign", "day", "provider", "os_version", "sdk_int", "standby_bucket",
        "background_restricted", "ignoring_battery_optimizations", "low_power_mode", "push_type", "message_kind",
        "browser", "push_service",
    ]

    /// Every app of a sharded deployment from the rollups, read on its directory's coordinator
    /// (``ReportScope/fleet``): each app's answer as its shard gives it, summed per slice (the
    /// outcome, cause and latency counts alike), rates from the sums. `rollups`: the shards'
    /// freshness combined (``RollupStatus/combined(_:)``); the report is as of the oldest
    /// shard's refresh.
    public static func fleet(
        directory: Connection, query: ReportQuery, by dimensions: [ReportDimension] = [], rollups: RollupStatus
    ) throws(ReportError) -> SilentLossReport {
        var window = query
        if window.app.isEmpty { window.app = ReportScope.fleetName }
        // The hours outside whole days are the engine's, which reads events: they stay on the shards.
        guard query.isWholeDays else {
            throw ReportError.invalidQuery(
                "every app is read from whole UTC days: --from and --to at 00:00 UTC, or --week")
        }
        let (planned, answer) = try plan(directory, .rollups, asOf: query.asOf, status: rollups) { asOf in
            var query = window
            query.asOf = asOf
            return query
        }
        return try read(directory, planned, answer, by: dimensions, scope: .fleet)
    }

    /// The JSON shape: `{"from", "to", "as_of", "rows": [{<dimensions>, counts, rates, "low_volume"}]}`.
    public var json: JSONValue {
        .object(
            [
                ("from", .string(Display.timestamp(query.from))),
                ("to", .string(Display.timestamp(query.to))),
                ("as_of", .string(Display.timestamp(query.asOf))),
            ] + answer.jsonFields + [
                (
                    "rows",
                    .array(
                        rows.map { row in
                            let fields: [(String, JSONValue)] = dimensions.map {
                                ($0.rawValue, $0.json(row.values[$0] ?? nil))
                            }
                            return .object(fields + row.counts.jsonFields)
                        })
                )
            ])
    }

    /// The terminal/CSV/Markdown table: dimensions, the counts, then the rates (a `*` marks
    /// low volume in table and Markdown; CSV carries exact fractions and the low-volume list).
    public func table(for format: ReportFormat) -> ReportTable {
        let raw = format == .csv
        var columns = dimensions.map(\.rawValue)
        columns += OutcomeCounts().namedCounts.map(\.name)
        columns += OutcomeCounts().namedRates.map(\.name)
        columns += CauseCounts.fieldNames
        if raw { columns.append("low_volume") }
        let body = rows.map { row -> [Cell] in
            var cells: [Cell] = dimensions.map { (row.values[$0] ?? nil).map(Cell.text) ?? (raw ? .null : "(none)") }
            cells += row.counts.namedCounts.map { .integer($0.count) }
            cells += row.counts.namedRates.map { raw ? Display.fraction($0.rate) : Display.rate($0.rate) }
            let causes = row.counts.causes ?? CauseCounts()
            cells += causes.namedCounts.map { .integer($0.count) }
            cells += causes.namedRates.map { raw ? Display.fraction($0.rate) : Display.rate($0.rate) }
            cells += causes.namedBuckets.map { $0.bucket.map { .text($0.rawValue) } ?? .null }
            if raw { cells.append(.text(row.counts.lowVolumeRates.joined(separator: " "))) }
            return cells
        }
        var notes = [
            """
            window [\(Display.timestamp(query.from)), \(Display.timestamp(query.to))) as of \
            \(Display.timestamp(query.asOf))
            """,
            answer.text,
        ]
        if rows.isEmpty { notes.append("no sends in the window") }
        notes.append("causes of unconfirmed sends are evidence from what devices and senders reported, not certainty")
        notes.append("* denominator under \(Rate.lowVolumeThreshold) (low volume); — rate undefined (denominator 0)")
        let key = dimensions.map(\.rawValue) + Self.keyColumns
        return ReportTable(title: "Silent loss", columns: columns, rows: body, notes: notes, key: key)
    }

    /// The default terminal columns after the dimensions: what was sent, what is still pending,
    /// the two rates the report is for, and the accepted sends they leave aside (nothing could
    /// have confirmed them; `--wide` shows them beside unattributed).
    static let keyColumns = [
        "sends", "accepted", "pending", "silent_loss_rate", "confirmed_delivery_rate", "unconfirmable",
    ]

    /// Renders in `table`, `json`, `csv` or `markdown`; `columns` shapes the terminal table.
    public func rendered(_ format: ReportFormat, columns: ColumnChoice = .key) throws(ReportError) -> String {
        if format == .json { return json.jsonText(pretty: true) + "\n" }
        guard format != .text, let tableFormat = format.tableFormat else {
            throw ReportError.unsupported(format, report: "report silent-loss")
        }
        let table = table(for: format)
        return table.rendered(tableFormat, columns: try columns.checked([table]))
    }
}
