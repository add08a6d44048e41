import Foundation
import OutcomeEngine
import PushLedgerRules
import PushLedgerSupport
import TableRendering

extension PromptTimingReport {
    /// The JSON shape, plus `note` naming the mode (and the fallback, when it happened).
    public var json: JSONValue {
        .object([
            ("from", .string(Display.timestamp(query.from))),
            ("to", .string(Display.timestamp(query.to))),
            ("as_of", .string(Display.timestamp(query.asOf))),
            ("mode", .string(mode.rawValue)),
            ("note", .string(modeNote)),
            ("baseline", .text(baseline)),
            ("cohorts", .array(cohorts.map(cohortJSON))),
        ])
    }

    private func cohortJSON(_ cohort: Cohort) -> JSONValue {
        func interval(_ rate: Rate) -> JSONValue {
            rate.wilsonInterval().map { .array([.double($0.lower), .double($0.upper)]) } ?? .null
        }
        let versus: JSONValue =
            comparisons(cohort).map { list in
                .object(
                    list.map { name, comparison -> (String, JSONValue) in
                        (
                            name,
                            .object([
                                ("diff_pp", .number(comparison.differencePoints)),
                                ("p_value", .number(comparison.pValue)),
                                ("insufficient_data", .bool(comparison.insufficientData)),
                            ])
                        )
                    })
            } ?? .null
        return .object([
            ("cohort", .string(cohort.name)),
            ("installs", .int(cohort.installs)),
            ("prompted", .int(cohort.prompted)),
            ("opt_in_rate", .number(cohort.optIn.value)),
            ("opt_in_ci", interval(cohort.optIn)),
            ("provisional_rate", .number(cohort.provisional.value)),
            ("reach_rate", .number(cohort.reach.value)),
            ("reach_ci", interval(cohort.reach)),
            ("granted_without_prompt", .int(cohort.grantedWithoutPrompt)),
            ("retained_7d", .number(cohort.retained7d.value)),
            ("median_hours_to_prompt", .number(cohort.medianHoursToPrompt)),
            ("open_rate", .number(cohort.openRate?.value)),
            ("silent_loss_rate", .number(cohort.silentLossRate?.value)),
            ("vs_baseline", versus),
        ])
    }

    /// One row per cohort: counts, rates with their 95% intervals, and the difference from the
    /// baseline with its p-value (`!` marks insufficient data).
    public func table(for format: ReportFormat) -> ReportTable {
        let raw = format == .csv
        func rate(_ r: Rate?) -> Cell {
            guard let r else { return .null }
            if raw { return Display.fraction(r) }
            return r.value == nil ? .null : .text(Display.rate(r).displayText + " (\(r.numerator)/\(r.denominator))")
        }
        func interval(_ r: Rate) -> Cell {
            guard let ci = r.wilsonInterval() else { return .null }
            return .text(raw ? "\(ci.lower) \(ci.upper)" : "\(Display.percent(ci.lower))–\(Display.percent(ci.upper))")
        }
        func versus(_ c: Cohort, _ name: String) -> Cell {
            guard let found = comparisons(c)?.first(where: { $0.name == name })?.comparison else {
                return raw || c.name != baseline ? .null : "baseline"
            }
            if raw { return found.differencePoints.map { .text("\($0)") } ?? .null }
            return .text(
                """
                \(Display.points(found.differencePoints)) \
                p=\(Display.pValue(found.pValue))\(found.insufficientData ? " !" : "")
                """
            )
        }
        let columns = [
            "cohort", "installs", "prompted", "opt_in_rate", "opt_in_ci", "opt_in_vs_baseline", "provisional_rate",
            "provisional_vs_baseline", "reach_rate", "reach_ci", "reach_vs_baseline", "granted_without_prompt",
            "retained_7d", "retained_7d_vs_baseline", "median_hours_to_prompt", "open_rate", "silent_loss_rate",
        ]
        let rows = cohorts.map { c -> [Cell] in
            [
                .text(c.name), .integer(c.installs), .integer(c.prompted), rate(c.optIn), interval(c.optIn),
                versus(c, "opt_in_rate"),
                rate(c.provisional), versus(c, "provisional_rate"), rate(c.reach), interval(c.reach),
                versus(c, "reach_rate"), .integer(c.grantedWithoutPrompt), rate(c.retained7d), versus(c, "retained_7d"),
                raw ? (c.medianHoursToPrompt.map { .text("\($0)") } ?? .null) : Display.hours(c.medianHoursToPrompt),
                rate(c.openRate), rate(c.silentLossRate),
            ]
        }
        var notes = [modeNote]
        notes.append(
            """
            window [\(Display.timestamp(query.from)), \(Display.timestamp(query.to))) as of \
            \(Display.timestamp(query.asOf)); baseline: \(baseline ?? "none")
            """
        )
        if cohorts.isEmpty { notes.append("no cohort in the window") }
        if !raw {
            notes.append(
                """
                intervals: 95% Wilson; p: two-sided pooled two-proportion z-test; ! insufficient data (a \
                denominator under \(Rate.lowVolumeThreshold))
                """
            )
            notes.append("open and silent-loss rates are descriptive only (sends cluster by installation)")
        }
        return ReportTable(
            title: "Permission prompt timing (\(mode.rawValue))", columns: columns, rows: rows, notes: notes,
            key: ["cohort", "installs", "prompted", "opt_in_rate", "opt_in_vs_baseline", "reach_rate"])
    }

    /// Renders in `table`, `json`, `csv` or `markdown`. CSV has no room for notes (a comment
    /// line would break readers), so it says the mode in a leading `mode` column.
    public func rendered(_ format: ReportFormat, columns: ColumnChoice = .key) throws(ReportError) -> String {
        switch format {
        case .json: return json.jsonText(pretty: true) + "\n"
        case .csv:
            var table = table(for: .csv).table
            table.columns.insert(Table.Column("mode"), at: 0)
            table.rows = table.rows.map { [.text(mode.rawValue)] + $0 }
            return table.csv()
        case .table, .markdown:
            let table = table(for: format)
            return table.rendered(format.tableFormat!, columns: try columns.checked([table]))
        case .html, .text: throw ReportError.unsupported(format, report: "report prompt-timing")
        }
    }
}
