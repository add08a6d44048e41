import Foundation
import OutcomeEngine
import Postgres
import PushLedgerRules
import TableRendering

extension SilentLossReport {
    /// `query silent-loss --since 24h`: the on-call answer, one line per slice with the silent
    /// loss rate and its parts, counts beside each rate, over the latest `span` of sends that
    /// are no longer pending (see ``ReportQuery/settled(app:span:asOf:confirmationWindow:)``).
    public static func quick(
        connection: Connection, app: String, since span: TimeInterval, asOf: Date = Date(),
        confirmationWindow: TimeInterval = ReportQuery.defaultConfirmationWindow, by dimensions: [ReportDimension] = [],
        source: ReportSource = .engine
    )
        throws(ReportError) -> SilentLossReport
    {
        guard span > 0 else { throw ReportError.invalidQuery("--since must be a positive duration") }
        let (query, answer) = try plan(connection, source, asOf: asOf) { asOf in
            ReportQuery.settled(app: app, span: span, asOf: asOf, confirmationWindow: confirmationWindow)
        }
        return try read(connection, query, answer, by: dimensions)
    }

    /// The short terminal table of ``quick(connection:app:since:asOf:by:)``.
    public var quickText: String { quickTable.terminal(style: .plain) }

    /// The short terminal table with the columns `choice` picks.
    public func quickText(columns choice: ColumnChoice) throws(ReportError) -> String {
        let table = quickTable
        return table.terminal(style: .plain, columns: try choice.checked([table]))
    }

    private var quickTable: ReportTable {
        func cell(_ rate: Rate) -> Cell {
            rate.value == nil
                ? .null : .text("\(Display.rate(rate).displayText) (\(rate.numerator)/\(rate.denominator))")
        }
        let rates = ["silent loss", "known blocked", "unconfirmed", "confirmed delivery"]
        return ReportTable(
            title: "Silent loss of sends from \(Display.timestamp(query.from)) to \(Display.timestamp(query.to))",
            columns: dimensions.map(\.rawValue) + ["sends", "pending", "rejected"] + rates + [
                "unattributed", "unconfirmable",
            ],
            rows: rows.map { row -> [Cell] in
                let c = row.counts
                return dimensions.map { .text((row.values[$0] ?? nil) ?? "(none)") }
                    + [
                        .integer(c.sends), .integer(c.pending), .integer(c.rejected), cell(c.silentLossRate),
                        cell(c.knownBlockedRate),
                        cell(c.unconfirmedRate), cell(c.confirmedDeliveryRate), .integer(c.unattributed),
                        .integer(c.unconfirmable),
                    ]
            },
            notes: [
                answer.text,
                """
                as of \(Display.timestamp(query.asOf)); the window ends one confirmation window \
                (\(Int(query.confirmationWindow / 3600)) h) before, so no send in it is pending; * denominator \
                under \(Rate.lowVolumeThreshold)
                """,
            ]
                + (rows.isEmpty ? ["no sends in the window"] : []),
            key: dimensions.map(\.rawValue) + ["sends"] + rates)
    }
}
