import Foundation
import OutcomeEngine
import Postgres
import PushLedgerSupport

/// Who answers a silent-loss report (`--source`): the daily rollups, the outcome engine, or
/// the rollups whenever they can (auto).
public enum ReportSource: String, Sendable, CaseIterable {
    case auto, rollups, engine
}

extension SilentLossReport {
    /// Who answered a report.
    public enum Answer: Sendable, Equatable {
        /// The rollups (their whole UTC days; the engine for the window's other hours, if any),
        /// as of their refresh.
        case rollups(RollupStatus)
        /// The outcome engine over the exact window; `reason`: why auto did not pick the rollups.
        case engine(reason: String?)

        var isRollups: Bool { if case .rollups = self { true } else { false } }

        /// "answered from the rollups as of …" or "answered by the outcome engine (…)".
        public var text: String {
            switch self {
            case .rollups(let status): "answered from the \(status.text)"
            case .engine(let reason): "answered by the outcome engine" + (reason.map { " (\($0))" } ?? "")
            }
        }

        /// `source` ("rollups" or "engine"), the rollups' freshness or why the engine answered.
        var jsonFields: [(String, JSONValue)] {
            switch self {
            case .rollups(let status): [("source", .string("rollups"))] + status.jsonFields
            case .engine(let reason): [("source", .string("engine")), ("source_reason", .text(reason))]
            }
        }
    }

    /// Picks who answers and the query they answer: `window(asOf)` is the report's window as of
    /// a time. The engine answers as of `asOf`; the rollups as of their refresh, and only
    /// where they are exact: refreshed at all, with the default confirmation window (the one
    /// `pushledger rollup` uses), over a window holding a whole UTC day (shorter windows gain
    /// nothing). `.rollups` makes each of these an error, `.auto` falls back to the engine.
    /// `status`: the rollups' freshness when the caller read it elsewhere (the shards of a fleet read).
    static func plan(
        _ connection: Connection, _ source: ReportSource, asOf: Date, status: RollupStatus? = nil,
        window: (Date) -> ReportQuery
    ) throws(ReportError) -> (ReportQuery, Answer) {
        guard source != .engine else { return (try window(asOf).validated(), .engine(reason: nil)) }
        let status = if let status { status } else { try RollupStatus.read(connection: connection) }
        func engine(_ reason: String) throws(ReportError) -> (ReportQuery, Answer) {
            if source == .rollups { throw ReportError.invalidQuery("--source rollups: \(reason)") }
            return (try window(asOf).validated(), .engine(reason: reason))
        }
        guard let rollupsAsOf = status.asOf else { return try engine(RollupStatus.neverRefreshedAdvice) }
        let query = try window(rollupsAsOf).validated()
        guard query.confirmationWindow == ReportQuery.defaultConfirmationWindow else {
            return try engine(
                """
                the rollups use the default confirmation window of \
                \(Int(ReportQuery.defaultConfirmationWindow / 3600)) h
                """
            )
        }
        guard query.holdsWholeDay else { return try engine("no whole UTC day in the window") }
        return (query, .rollups(status))
    }
}

extension ReportQuery {
    /// Whether from and to are both midnights UTC: the window is whole UTC days and nothing else.
    var isWholeDays: Bool {
        [from, to].allSatisfy { $0.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) == 0 }
    }

    /// Whether [from, to) holds at least one whole UTC day (the unit of the rollups).
    var holdsWholeDay: Bool {
        (from.timeIntervalSince1970 / 86_400).rounded(.up) < (to.timeIntervalSince1970 / 86_400).rounded(.down)
    }
}
