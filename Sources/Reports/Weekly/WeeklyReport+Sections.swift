import Foundation
import PushLedgerCore

extension WeeklyReport {
    /// The headline figures, named as the report shows them.
    static let headlineRates: [(label: String, key: String, rate: @Sendable (OutcomeCounts) -> Rate)] = [
        ("confirmed delivery", "confirmed_delivery_rate", { $0.confirmedDeliveryRate }),
        ("silent loss", "silent_loss_rate", { $0.silentLossRate }),
        ("open rate", "open_rate", { $0.openRate }),
    ]

    /// A rate this week, last week, and the change in percentage points ("*": low volume).
    static func rateCells(_ current: Rate, _ previous: Rate) -> [String] {
        let change = current.value.flatMap { c in previous.value.map { (c - $0) * 100 } }
        return [Display.percent(current.value) + (current.isLowVolume && current.value != nil ? "*" : ""),
                Display.percent(previous.value), Display.points(change)]
    }

    static func countCells(_ current: Int, _ previous: Int) -> [String] {
        [String(current), String(previous), Display.change(current - previous)]
    }

    /// Every section as a titled table, in the order of spec/metrics.md "Weekly report".
    public var sections: [ReportTable] {
        let changeColumns = ["this week", "previous week", "change"]
        let headlineTable = ReportTable(
            title: "Headline",
            columns: ["figure"] + changeColumns,
            rows: [["sends"] + Self.countCells(headline.current.sends, headline.previous.sends),
                   ["accepted"] + Self.countCells(headline.current.accepted, headline.previous.accepted)]
                + Self.headlineRates.map { [$0.label] + Self.rateCells($0.rate(headline.current), $0.rate(headline.previous)) },
            notes: headline.current.pending > 0
                ? ["\(headline.current.pending) sends still pending (within the confirmation window) are left out of accepted"] : [])
        func sliceTable(_ title: String, _ name: String, _ slices: [Slice]) -> ReportTable {
            var columns = [name, "sends", "Δ sends"]
            for rate in Self.headlineRates { columns += [rate.label, "prev", "Δ"] }
            return ReportTable(title: title, columns: columns, rows: slices.map { slice in
                var cells = [slice.name, String(slice.current.sends), Display.change(slice.current.sends - slice.previous.sends)]
                for rate in Self.headlineRates { cells += Self.rateCells(rate.rate(slice.current), rate.rate(slice.previous)) }
                return cells
            })
        }
        let rejectionTable = ReportTable(
            title: "Provider rejections by reason",
            columns: ["provider", "reason class", "reason"] + changeColumns,
            rows: rejections.map { [$0.provider, $0.reasonClass, $0.reason ?? "(none)"] + Self.countCells($0.current, $0.previous) })
        let hygieneTable = ReportTable(
            title: "Token hygiene",
            columns: ["figure"] + changeColumns,
            rows: [["tokens invalidated (results marking a token invalid)"] + Self.countCells(headline.current.tokenInvalid, headline.previous.tokenInvalid),
                   ["sends to tokens already known invalid"] + Self.countCells(headline.current.toInvalidToken, headline.previous.toInvalidToken)])
        let landingTable = ReportTable(
            title: "Tap-through landing (misrouted opens)",
            columns: ["channel", "campaign", "opens", "reported landing", "misrouted", "misrouted rate", "prev", "Δ"],
            rows: landings.map {
                [$0.channel, $0.campaign ?? "(none)", String($0.current.opens), String($0.current.landedReported),
                 String($0.current.misrouted)] + Self.rateCells($0.current.misroutedRate, $0.previous.misroutedRate)
            },
            notes: ["misrouted: opens that landed on the fallback screen or were rejected, out of opens that reported where they landed"])
        return [headlineTable, sliceTable("Per channel", "channel", channels), sliceTable("Per platform", "platform", platforms),
                rejectionTable, hygieneTable, landingTable, promptTable, alertTable]
    }

    private var promptTable: ReportTable {
        let rows = promptTiming.cohorts.map { cohort -> [String] in
            let previous = previousPromptTiming.cohorts.first { $0.name == cohort.name }
            let versus = promptTiming.comparisons(cohort)?.first { $0.name == "opt_in_rate" }?.comparison
            func interval(_ r: Rate) -> String {
                r.wilsonInterval().map { "\(Display.percent($0.lower))–\(Display.percent($0.upper))" } ?? "–"
            }
            return [cohort.name, String(cohort.installs), String(cohort.prompted)]
                + Self.rateCells(cohort.optIn, previous?.optIn ?? Rate(0, of: 0))
                + [interval(cohort.optIn), Display.percent(cohort.reach.value), interval(cohort.reach),
                   versus.map { "\(Display.points($0.differencePoints)) p=\(Display.pValue($0.pValue))\($0.insufficientData ? " !" : "")" }
                       ?? (cohort.name == promptTiming.baseline ? "baseline" : "–")]
        }
        var notes = [promptTiming.modeNote]
        if promptTiming.cohorts.isEmpty { notes.append("no cohort this week") }
        return ReportTable(
            title: "Prompt timing",
            columns: ["cohort", "installs", "prompted", "opt-in", "prev", "Δ", "opt-in 95% CI", "reach", "reach 95% CI", "opt-in vs baseline"],
            rows: rows, notes: notes)
    }

    private var alertTable: ReportTable {
        guard let alerts else {
            return ReportTable(title: "Alerts fired", columns: ["rule", "slice", "at", "message"], rows: [], notes: ["alerting not set up"])
        }
        return ReportTable(
            title: "Alerts fired", columns: ["rule", "slice", "at", "message"],
            rows: alerts.map { [$0.rule, $0.slice, Display.timestamp($0.at), $0.message] },
            notes: alerts.isEmpty ? ["no alert fired this week"] : [])
    }

    var subtitle: String {
        "\(app) · \(week.label) (\(Display.day(week.start)) to \(Display.day(week.end.addingTimeInterval(-1))), UTC) · rollups as of \(Display.timestamp(asOf))"
    }

    /// Renders in `markdown`, `text`, `html` or `json`.
    public func rendered(_ format: ReportFormat) throws(ReportError) -> String {
        switch format {
        case .markdown:
            return "# PushLedger weekly report\n\n\(subtitle)\n\n" + sections.map { $0.markdown() }.joined(separator: "\n")
                + "\n_\\* denominator under \(Rate.lowVolumeThreshold); Δ in percentage points for rates_\n"
        case .text, .table:
            return "PushLedger weekly report\n\(subtitle)\n\n" + sections.map { $0.aligned() }.joined(separator: "\n")
        case .html: return html
        case .json: return json.serialized(pretty: true) + "\n"
        case .csv: throw ReportError.unsupported(format, report: "report weekly")
        }
    }
}
