import Foundation
import PushLedgerRules
import TableRendering

extension WeeklyReport {
    /// One self-contained page: inline CSS and SVG, no scripts, nothing fetched. Reads on a
    /// laptop and a phone (fluid charts, scrolling tables) and prints cleanly.
    public var html: String {
        let e = SVGChart.escape
        var body =
            """
            <header><h1>PushLedger weekly report</h1><p class=\"sub\">\(e(subtitle))</p><p \
            class=\"sub\">\(e(rollups.text))</p></header>\n<main>\n
            """
        body += "<section class=\"charts\">\n"
        body += figure("Silent loss by channel, last \(Self.trendWeeks) weeks", trendChart)
        body += figure("Delivery funnel, \(week.description)", funnelChart)
        body += figure("Opt-in and reach by cohort (95% Wilson intervals)", cohortChart)
        body += figure(
            """
            Why unconfirmed: causes per platform and channel (of accepted), \(week.previous.description) and \
            \(week.description)
            """,
            causeChart)
        body += figure(
            "Delivery latency per platform and channel, \(week.previous.description) and \(week.description)",
            latencyChart)
        body += figure("Rejections by reason, \(week.description)", rejectionChart)
        if hasFCMData {
            body += figure("FCM delivered vs confirmed by devices, per Los Angeles day", providerCheckChart)
        }
        body += "</section>\n"
        for table in sections { body += Self.htmlTable(table) }
        body +=
            """
            <p class=\"legend\">* denominator under \(Rate.lowVolumeThreshold) (low volume) · — undefined \
            (denominator 0) · Δ for rates in percentage points · ! insufficient data for the comparison</p>\n
            """
        body += "</main>\n"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>PushLedger weekly report \(e(app)) \(e(week.description))</title>
            <style>\(Self.css)</style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    private func figure(_ caption: String, _ svg: String) -> String {
        "<figure><figcaption>\(SVGChart.escape(caption))</figcaption>\(svg)</figure>\n"
    }

    private var trendChart: String {
        let weeks = week.recent(Self.trendWeeks)
        let names = Set(trend.map(\.channel)).sorted()
        return SVGChart.lines(
            title: "Silent loss rate by channel per week",
            xLabels: weeks.map { String($0.description.suffix(3)) },
            series: names.map { name in
                (
                    name,
                    weeks.map { w in trend.first { $0.week == w && $0.channel == name }?.counts.silentLossRate.value }
                )
            })
    }

    private var funnelChart: String {
        let c = headline.current
        let steps: [(String, Int)] = [
            ("sends", c.sends), ("accepted (decided)", c.accepted), ("confirmed delivered", c.received + c.opened),
            ("opened", c.opened), ("pending", c.pending), ("rejected", c.rejected), ("blocked (app)", c.blockedApp),
            ("blocked (channel)", c.blockedChannel), ("unconfirmed", c.unconfirmed), ("unattributed", c.unattributed),
        ]
        return SVGChart.bars(
            title: "Delivery funnel",
            items: steps.map { label, count in
                (
                    label, Double(count),
                    "\(count)" + (c.sends > 0 ? String(format: " (%.1f%%)", Double(count) * 100 / Double(c.sends)) : "")
                )
            })
    }

    private var cohortChart: String {
        SVGChart.intervals(
            title: "Opt-in and reach by cohort with 95% intervals",
            groups: promptTiming.cohorts.map { cohort in
                (
                    cohort.name,
                    [cohort.optIn, cohort.reach].enumerated().map { i, rate in
                        let ci = rate.wilsonInterval()
                        return (i == 0 ? "opt-in" : "reach", rate.value, ci?.lower, ci?.upper)
                    }
                )
            },
            measures: ["opt-in", "reach"])
    }

    private var rejectionChart: String {
        SVGChart.bars(
            title: "Rejections by reason",
            items: rejections.filter { $0.current > 0 }.map {
                (
                    "\($0.provider) \($0.reason ?? $0.reasonClass)", Double($0.current),
                    "\($0.current) (\($0.reasonClass))"
                )
            },
            color: "#dc2626")
    }

    static func htmlTable(_ table: ReportTable) -> String {
        let e = SVGChart.escape
        var out = "<section><h2>\(e(table.title))</h2><div class=\"scroll\"><table><thead><tr>"
        out += table.table.columns.map { "<th>\(e($0.title))</th>" }.joined() + "</tr></thead><tbody>"
        for row in table.table.rows {
            out +=
                "<tr>"
                + zip(row, table.table.columns).map { cell, column in
                    "<td\(column.alignment == .right ? " class=\"num\"" : "")>\(e(cell.displayText))</td>"
                }.joined() + "</tr>"
        }
        if table.table.rows.isEmpty {
            out += "<tr><td colspan=\"\(table.table.columns.count)\" class=\"empty\">none</td></tr>"
        }
        out += "</tbody></table></div>"
        out += table.notes.map { "<p class=\"note\">\(e($0))</p>" }.joined()
        return out + "</section>\n"
    }

    static let css = """
        :root{--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--bg:#fff;--head:#f3f4f6}
        *{box-sizing:border-box}
        body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe \
        UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
        header,main{max-width:1100px;margin:0 auto;padding:16px}
        h1{font-size:1.5rem;margin:0 0 4px}
        h2{font-size:1.15rem;margin:28px 0 8px}
        .sub,.note,.legend{color:var(--muted);font-size:.85rem;margin:4px 0}
        .charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:16px}
        figure{margin:0;border:1px solid var(--line);border-radius:8px;padding:12px;break-inside:avoid}
        figcaption{font-weight:600;margin-bottom:6px}
        svg{width:100%;height:auto;display:block}
        svg .grid{stroke:var(--line);stroke-width:1}
        svg .axis{fill:var(--muted);font-size:11px}
        svg .label{fill:var(--fg);font-size:12px}
        svg .value{fill:var(--fg);font-size:11px}
        .scroll{overflow-x:auto}
        table{border-collapse:collapse;width:100%;font-size:.88rem}
        th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;white-space:nowrap}
        th{background:var(--head);font-weight:600}
        td.num{text-align:right;font-variant-numeric:tabular-nums}
        td.empty{color:var(--muted)}
        @media (max-width:600px){
          body{font-size:14px}
          header,main{padding:10px}
          .charts{grid-template-columns:1fr}
          th,td{padding:4px 6px}
          svg .axis,svg .value{font-size:14px}
          svg .label{font-size:15px}
        }
        @media print{
          body{font-size:11px}
          header,main{max-width:none;padding:0}
          .charts{grid-template-columns:1fr 1fr}
          figure,section{break-inside:avoid;page-break-inside:avoid}
          .scroll{overflow:visible}
          th{background:none;border-bottom:2px solid #000}
          @page{margin:12mm}
        }
        """
}
