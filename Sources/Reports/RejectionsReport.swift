import Foundation
import OutcomeEngine
import Postgres
import PushLedgerRules
import PushLedgerSupport
import TableRendering

/// `report rejections`: provider rejections by reason and reason class, invalid tokens, and
/// sends to tokens already known invalid at send time (docs/metrics.md "Rates").
public struct RejectionsReport: Sendable, Equatable {
    /// One provider's totals.
    public struct Provider: Sendable, Equatable {
        public var provider: String
        public var sends: Int
        public var rejected: Int
        public var tokenInvalid: Int
        public var toInvalidToken: Int

        public var rejectionRate: Rate { Rate(rejected, of: sends) }
        public var tokenInvalidRate: Rate { Rate(tokenInvalid, of: sends) }
        public var toInvalidTokenRate: Rate { Rate(toInvalidToken, of: sends) }
    }

    /// Rejections of one (provider, reason class, reason, status).
    public struct Reason: Sendable, Equatable {
        public var provider: String
        public var reasonClass: String
        public var reason: String?
        public var status: Int
        public var rejected: Int
        /// Share of the provider's sends.
        public var rate: Rate
    }

    public let query: ReportQuery
    public let providers: [Provider]
    public let reasons: [Reason]

    public static func run(connection: Connection, query: ReportQuery) throws(ReportError) -> RejectionsReport {
        let query = try query.validated()
        let rows = try databaseStep("counting rejections") {
            try connection.query(
                """
                select provider, reason_class, reason, status, sends, rejected, token_invalid, to_invalid_token
                  from pushledger_rejections(\(query.app), \(query.from), \(query.to), \(query.asOf))
                """
            ).map { row in
                (
                    provider: try row.decode("provider", as: String.self),
                    reasonClass: try row.decode("reason_class", as: String?.self),
                    reason: try row.decode("reason", as: String?.self),
                    status: try row.decode("status", as: Int?.self),
                    sends: try row.decode("sends", as: Int.self), rejected: try row.decode("rejected", as: Int.self),
                    tokenInvalid: try row.decode("token_invalid", as: Int.self),
                    toInvalid: try row.decode("to_invalid_token", as: Int.self)
                )
            }
        }
        let providers = rows.filter { $0.reasonClass == nil }.map {
            Provider(
                provider: $0.provider, sends: $0.sends, rejected: $0.rejected, tokenInvalid: $0.tokenInvalid,
                toInvalidToken: $0.toInvalid)
        }
        let reasons = rows.compactMap { row -> Reason? in
            guard let reasonClass = row.reasonClass, let status = row.status else { return nil }
            let sends = providers.first { $0.provider == row.provider }?.sends ?? row.rejected
            return Reason(
                provider: row.provider, reasonClass: reasonClass, reason: row.reason, status: status,
                rejected: row.rejected, rate: Rate(row.rejected, of: sends))
        }.sorted {
            ($0.provider, -$0.rejected, $0.reasonClass, $0.reason ?? "") < (
                $1.provider, -$1.rejected, $1.reasonClass, $1.reason ?? ""
            )
        }
        return RejectionsReport(query: query, providers: providers, reasons: reasons)
    }

    /// Rejections per reason class and provider, summed over reasons.
    public var reasonClasses: [(provider: String, reasonClass: String, rejected: Int)] {
        var sums: [String: [String: Int]] = [:]
        for r in reasons { sums[r.provider, default: [:]][r.reasonClass, default: 0] += r.rejected }
        return sums.keys.sorted().flatMap { p in
            sums[p]!.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { (p, $0.key, $0.value) }
        }
    }

    public var json: JSONValue {
        func rate(_ r: Rate) -> JSONValue { .number(r.value) }
        return .object([
            ("from", .string(Display.timestamp(query.from))),
            ("to", .string(Display.timestamp(query.to))),
            ("as_of", .string(Display.timestamp(query.asOf))),
            (
                "providers",
                .array(
                    providers.map { p in
                        .object([
                            ("provider", .string(p.provider)), ("sends", .int(p.sends)), ("rejected", .int(p.rejected)),
                            ("rejection_rate", rate(p.rejectionRate)), ("token_invalid", .int(p.tokenInvalid)),
                            ("token_invalid_rate", rate(p.tokenInvalidRate)),
                            ("to_invalid_token", .int(p.toInvalidToken)),
                            ("to_invalid_token_rate", rate(p.toInvalidTokenRate)),
                        ])
                    })
            ),
            (
                "reason_classes",
                .array(
                    reasonClasses.map {
                        .object([
                            ("provider", .string($0.provider)), ("reason_class", .string($0.reasonClass)),
                            ("rejected", .int($0.rejected)),
                        ])
                    })
            ),
            (
                "reasons",
                .array(
                    reasons.map { r in
                        .object([
                            ("provider", .string(r.provider)), ("reason_class", .string(r.reasonClass)),
                            ("reason", .text(r.reason)),
                            ("status", .int(r.status)), ("rejected", .int(r.rejected)), ("rate", rate(r.rate)),
                        ])
                    })
            ),
        ])
    }

    /// Two tables: per provider, then per reason.
    public func tables(for format: ReportFormat) -> [ReportTable] {
        let raw = format == .csv
        func rate(_ r: Rate) -> Cell { raw ? Display.fraction(r) : r.value.map { .percent($0, digits: 2) } ?? .null }
        let window =
            """
            window [\(Display.timestamp(query.from)), \(Display.timestamp(query.to))) as of \
            \(Display.timestamp(query.asOf))
            """
        let providerTable = ReportTable(
            title: "Provider rejections",
            columns: [
                "provider", "sends", "rejected", "rejection_rate", "token_invalid", "token_invalid_rate",
                "to_invalid_token", "to_invalid_token_rate",
            ],
            rows: providers.map {
                [
                    .text($0.provider), .integer($0.sends), .integer($0.rejected), rate($0.rejectionRate),
                    .integer($0.tokenInvalid),
                    rate($0.tokenInvalidRate), .integer($0.toInvalidToken), rate($0.toInvalidTokenRate),
                ]
            },
            notes: [
                window,
                """
                to_invalid_token: sends to a token an earlier result had already marked invalid, not \
                re-registered since
                """,
            ]
                + (providers.isEmpty ? ["no sends in the window"] : []),
            key: ["provider", "sends", "rejected", "rejection_rate", "token_invalid", "to_invalid_token"])
        let reasonTable = ReportTable(
            title: "Rejections by reason",
            columns: ["provider", "reason_class", "reason", "status", "rejected", "share_of_sends"],
            rows: reasons.map {
                [
                    .text($0.provider), .text($0.reasonClass), $0.reason.map(Cell.text) ?? (raw ? .null : "(none)"),
                    .integer($0.status),
                    .integer($0.rejected), rate($0.rate),
                ]
            })
        return [providerTable, reasonTable]
    }

    /// Renders in `table`, `json`, `csv` (the per-reason rows) or `markdown`.
    public func rendered(_ format: ReportFormat, columns: ColumnChoice = .key) throws(ReportError) -> String {
        switch format {
        case .json: return json.jsonText(pretty: true) + "\n"
        case .csv: return tables(for: .csv)[1].table.csv()
        case .table, .markdown:
            let tables = tables(for: format)
            let choice = try columns.checked(tables)
            return tables.map { $0.rendered(format.tableFormat!, columns: choice) }.joined(separator: "\n")
        case .html, .text: throw ReportError.unsupported(format, report: "report rejections")
        }
    }
}
