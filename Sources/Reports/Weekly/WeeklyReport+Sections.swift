import Foundation
import OutcomeEngine
import PushLedgerRules
import TableRendering

extension WeeklyReport {
    /// The headline rates, named as the report shows them.
    static let headlineRates: [(label: String, rate: @Sendable (OutcomeCounts) -> Rate)] = [
        ("confirmed delivery", { $0.confirmedDeliveryRate }),
        ("silent loss", { $0.silentLossRate }),
        ("open rate", { $0.openRate }),
    ]

    /// A rate this week, last week, and the change in percentage points ("*": low volume).
    static func rateCells(_ current: Rate, _ previous: Rate) -> [Cell] {
        [Display.rate(current), Display.rate(previous), Display.change(current, from: previous)]
    }

    static func countCells(_ current: Int, _ previous: Int) -> [Cell] {
        [.integer(current), .integer(previous), Display.change(current - previous)]
    }

    /// Every section as a titled table, in the order of docs/metrics.md "Weekly report".
    public var sections: [ReportTable] {
        if isFleet {
            return [
                headlineTable, cannotConfirmTable, sliceTable("Per channel", "channel", channels),
                sliceTable("Per platform", "platform", platforms),
            ] + webTables + [causeTable, latencyTable, rejectionTable, hygieneTable, landingTable]
        }
        return [
            headlineTable, cannotConfirmTable, sliceTable("Per channel", "channel", channels),
            sliceTable("Per platform", "platform", platforms),
        ] + webTables + [
            causeTable, latencyTable, rejectionTable, hygieneTable, providerCheckTable,
        ]
            + (hasFCMData ? providerCheck.map { [$0.causeTable()] } ?? [] : [])
            + [landingTable, linkHostTable, promptTable, alertTable]
    }

    private static let changeColumns = ["this week", "previous week", "change"]

    private var headlineTable: ReportTable {
        let (c, p) = (headline.current, headline.previous)
        var rows: [[Cell]] = [
            ["sends"] + Self.countCells(c.sends, p.sends), ["accepted"] + Self.countCells(c.accepted, p.accepted),
        ]
        rows += Self.headlineRates.map { [.text($0.label)] + Self.rateCells($0.rate(c), $0.rate(p)) }
        // beside silent loss, the part of it nothing reported explains
        let unexplained = { (counts: OutcomeCounts) in (counts.causes ?? CauseCounts()).rate(.unexplained) }
        rows.insert(["silent loss: unexplained"] + Self.rateCells(unexplained(c), unexplained(p)), at: 4)
        // how much of the traffic nothing could confirm (left out of the rates above)
        rows.append(["cannot confirm"] + Self.rateCells(c.rates[.unconfirmableRate], p.rates[.unconfirmableRate]))
        let notes =
            c.pending > 0
            ? ["\(c.pending) sends still pending (within the confirmation window) are left out of accepted"] : []
        return ReportTable(title: "Headline", columns: ["figure"] + Self.changeColumns, rows: rows, notes: notes)
    }

    /// Web push per browser and per push service, when either week had web sends.
    private var webTables: [ReportTable] {
        guard !browsers.isEmpty else { return [] }
        return [
            sliceTable("Web push per browser", "browser", browsers),
            sliceTable("Web push per push service", "push service", pushServices),
        ]
    }

    private func sliceTable(_ title: String, _ name: String, _ slices: [Slice]) -> ReportTable {
        var columns = [name, "sends", "Δ sends"]
        for rate in Self.headlineRates { columns += [rate.label, "prev", "Δ"] }
        let rows = slices.map { slice -> [Cell] in
            var cells: [Cell] = [
                .text(slice.name), .integer(slice.current.sends),
                Display.change(slice.current.sends - slice.previous.sends),
            ]
            for rate in Self.headlineRates {
                cells += Self.rateCells(rate.rate(slice.current), rate.rate(slice.previous))
            }
            return cells
        }
        return ReportTable(title: title, columns: columns, rows: rows, key: columns.filter { $0 != "prev" })
    }

    private var rejectionTable: ReportTable {
        ReportTable(
            title: "Provider rejections by reason",
            columns: ["provider", "reason class", "reason"] + Self.changeColumns,
            rows: rejections.map { r -> [Cell] in
                [.text(r.provider), .text(r.reasonClass), .text(r.reason ?? "(none)")]
                    + Self.countCells(r.current, r.previous)
            })
    }

    private var hygieneTable: ReportTable {
        let (c, p) = (headline.current, headline.previous)
        return ReportTable(
            title: "Token hygiene", columns: ["figure"] + Self.changeColumns,
            rows: [
                ["tokens invalidated (results marking a token invalid)"]
                    + Self.countCells(c.tokenInvalid, p.tokenInvalid),
                ["sends to tokens already known invalid"] + Self.countCells(c.toInvalidToken, p.toInvalidToken),
            ])
    }

    private var landingTable: ReportTable {
        ReportTable(
            title: "Tap-through landing (misrouted opens)",
            columns: ["channel", "campaign", "opens", "reported landing", "misrouted", "misrouted rate", "prev", "Δ"],
            rows: landings.map { l -> [Cell] in
                [
                    .text(l.channel), .text(l.campaign ?? "(none)"), .integer(l.current.opens),
                    .integer(l.current.landedReported),
                    .integer(l.current.misrouted),
                ] + Self.rateCells(l.current.misroutedRate, l.previous.misroutedRate)
            },
            notes: [
                """
                misrouted: opens that landed on the fallback screen or were rejected, out of opens that reported \
                where they landed
                """
            ],
            key: ["channel", "campaign", "opens", "misrouted", "misrouted rate", "Δ"])
    }

    private var promptTable: ReportTable {
        func interval(_ r: Rate) -> Cell {
            r.wilsonInterval().map { .text("\(Display.percent($0.lower))–\(Display.percent($0.upper))") } ?? .null
        }
        let rows = promptTiming.cohorts.map { cohort -> [Cell] in
            let previous = previousPromptTiming.cohorts.first { $0.name == cohort.name }
            let versus = promptTiming.comparisons(cohort)?.first { $0.name == "opt_in_rate" }?.comparison
            let versusCell: Cell =
                versus.map {
                    .text(
                        """
                        \(Display.points($0.differencePoints)) \
                        p=\(Display.pValue($0.pValue))\($0.insufficientData ? " !" : "")
                        """
                    )
                } ?? (cohort.name == promptTiming.baseline ? "baseline" : .null)
            var cells: [Cell] = [.text(cohort.name), .integer(cohort.installs), .integer(cohort.prompted)]
            cells += Self.rateCells(cohort.optIn, previous?.optIn ?? Rate(0, of: 0))
            cells += [interval(cohort.optIn), Display.rate(cohort.reach), interval(cohort.reach), versusCell]
            return cells
        }
        var notes = [promptTiming.modeNote]
        if promptTiming.cohorts.isEmpty { notes.append("no cohort this week") }
        return ReportTable(
            title: "Prompt timing",
            columns: [
                "cohort", "installs", "prompted", "opt-in", "prev", "Δ", "opt-in 95% CI", "reach", "reach 95% CI",
                "opt-in vs baseline",
            ],
            rows: rows, notes: notes,
            key: ["cohort", "installs", "prompted", "opt-in", "Δ", "opt-in 95% CI", "reach", "opt-in vs baseline"])
    }

    private var alertTable: ReportTable {
        let columns = ["rule", "slice", "at", "message"]
        guard let alerts else {
            return ReportTable(title: "Alerts fired", columns: columns, rows: [], notes: ["alerting not set up"])
        }
        return ReportTable(
            title: "Alerts fired", columns: columns,
            rows: alerts.map { [.text($0.rule), .text($0.slice), .text(Display.timestamp($0.at)), .text($0.message)] },
            notes: alerts.isEmpty ? ["no alert fired this week"] : [])
    }

    var subtitle: String {
        "\(app) · \(week) (\(Display.day(week.start())) to \(Display.day(week.end().addingTimeInterval(-1))), UTC)"
            + (isFleet ? "\n\n" + Self.perAppNote : "")
    }

    /// What a fleet-wide report leaves to the per-app reports.
    static let perAppNote =
        "every app summed; prompt timing, link hosts, the provider check and alerts are per app: use --app"

    /// Renders in `markdown`, `text`, `html` or `json`; `columns` shapes the terminal tables.
    public func rendered(_ format: ReportFormat, columns: ColumnChoice = .key) throws(ReportError) -> String {
        switch format {
        case .markdown:
            return "# PushLedger weekly report\n\n\(subtitle)\n\n\(rollups.text)\n\n"
                + sections.map { $0.markdown() }.joined(separator: "\n")
                + "\n_\\* denominator under \(Rate.lowVolumeThreshold); Δ of rates in percentage points_\n"
        case .text, .table:
            let sections = sections
            let choice = try columns.checked(sections)
            return "PushLedger weekly report\n\(subtitle)\n\(rollups.text)\n\n"
                + sections.map { $0.terminal(style: format == .table ? .unicode : .plain, columns: choice) }.joined(
                    separator: "\n")
        case .html:
            if isFleet { throw ReportError.unsupported(format, report: "report weekly without --app") }
            return html
        case .json: return json.jsonText(pretty: true) + "\n"
        case .csv: throw ReportError.unsupported(format, report: "report weekly")
        }
    }
}
