import Foundation
import Postgres
import PushLedgerCore

extension SilentLossReport {
    /// `query silent-loss --since 24h`: the on-call answer, one line per slice with the silent
    /// loss rate and its parts, counts beside each rate. Sends still inside the confirmation
    /// window are pending and counted apart, so a short window shows how much is undecided.
    public static func quick(connection: Connection, app: String, since span: TimeInterval, asOf: Date = Date(),
                             by dimensions: [ReportDimension] = []) throws(ReportError) -> SilentLossReport {
        guard span > 0 else { throw ReportError.invalidQuery("--since must be a positive duration") }
        return try run(connection: connection, query: .recent(app: app, span: span, asOf: asOf), by: dimensions)
    }

    /// The short terminal table of ``quick(connection:app:since:asOf:by:)``.
    public var quickText: String {
        func cell(_ rate: Rate) -> Cell {
            rate.value == nil ? .null : .text("\(Display.text(Display.rate(rate))) (\(rate.numerator)/\(rate.denominator))")
        }
        let table = ReportTable(
            title: "Silent loss since \(Display.timestamp(query.from))",
            columns: dimensions.map(\.rawValue) + ["sends", "pending", "rejected", "silent loss", "known blocked", "unconfirmed",
                                                   "confirmed delivery", "unattributed"],
            rows: rows.map { row -> [Cell] in
                let c = row.counts
                return dimensions.map { .text((row.values[$0] ?? nil) ?? "(none)") }
                    + [.integer(c.sends), .integer(c.pending), .integer(c.rejected), cell(c.silentLossRate), cell(c.knownBlockedRate),
                       cell(c.unconfirmedRate), cell(c.confirmedDeliveryRate), .integer(c.unattributed)]
            },
            notes: ["as of \(Display.timestamp(query.asOf)); rates over accepted sends that are no longer pending; * under \(Rate.lowVolumeThreshold)"]
                + (rows.isEmpty ? ["no sends in the window"] : []))
        return table.terminal(style: .plain)
    }
}
