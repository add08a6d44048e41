import Foundation
import TableRendering

/// Inline SVG charts for the HTML weekly report: no scripts, no fonts or images fetched; each
/// scales to its container through its viewBox and carries a <title> for screen readers.
enum SVGChart {
    static let palette = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777"]

    /// Escapes text for HTML and SVG content and attributes.
    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static func number(_ x: Double) -> String { String(format: "%.1f", x) }

    private static func open(_ title: String, width: Int, height: Int) -> String {
        """
        <svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" \
        preserveAspectRatio=\"xMidYMid meet\">
        """
            + "<title>\(escape(title))</title>"
    }

    /// A line per series over the x labels; y in percent from 0 to the largest value (at least 5%).
    /// Missing points (undefined rates) break the line.
    static func lines(title: String, xLabels: [String], series: [(name: String, values: [Double?])]) -> String {
        let width = 640, height = 280, left = 48.0, right = 150.0, top = 16.0, bottom = 40.0
        let plotW = Double(width) - left - right, plotH = Double(height) - top - bottom
        let maxValue = max(0.05, series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0)
        let yMax = (maxValue * 100 / 5).rounded(.up) * 5 / 100
        func x(_ i: Int) -> Double {
            left + (xLabels.count > 1 ? plotW * Double(i) / Double(xLabels.count - 1) : plotW / 2)
        }
        func y(_ v: Double) -> Double { top + plotH * (1 - v / yMax) }
        var svg = open(title, width: width, height: height)
        for step in 0...4 {
            let v = yMax * Double(step) / 4
            svg +=
                """
                <line x1=\"\(number(left))\" x2=\"\(number(left + plotW))\" y1=\"\(number(y(v)))\" \
                y2=\"\(number(y(v)))\" class=\"grid\"/>
                """
            svg +=
                """
                <text x=\"\(number(left - 6))\" y=\"\(number(y(v) + 4))\" text-anchor=\"end\" \
                class=\"axis\">\(String(format: "%.0f%%", v * 100))</text>
                """
        }
        for (i, label) in xLabels.enumerated() {
            svg +=
                """
                <text x=\"\(number(x(i)))\" y=\"\(height - 18)\" text-anchor=\"middle\" \
                class=\"axis\">\(escape(label))</text>
                """
        }
        for (n, s) in series.enumerated() {
            let color = palette[n % palette.count]
            var path = "", pen = false
            for (i, value) in s.values.enumerated() {
                guard let value else {
                    pen = false
                    continue
                }
                path += "\(pen ? "L" : "M")\(number(x(i))),\(number(y(value))) "
                pen = true
                svg +=
                    """
                    <circle cx=\"\(number(x(i)))\" cy=\"\(number(y(value)))\" r=\"3\" \
                    fill=\"\(color)\"><title>\(escape(s.name)) \(escape(xLabels[i])): \
                    \(Display.percent(value))</title></circle>
                    """
            }
            if !path.isEmpty { svg += "<path d=\"\(path)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>" }
            let ly = top + 14 + Double(n) * 18
            svg +=
                """
                <rect x=\"\(number(left + plotW + 14))\" y=\"\(number(ly - 9))\" width=\"10\" height=\"10\" \
                fill=\"\(color)\"/>
                """
            svg +=
                "<text x=\"\(number(left + plotW + 30))\" y=\"\(number(ly))\" class=\"label\">\(escape(s.name))</text>"
        }
        if series.isEmpty {
            svg += "<text x=\"\(width / 2)\" y=\"\(height / 2)\" text-anchor=\"middle\" class=\"axis\">no sends</text>"
        }
        return svg + "</svg>"
    }

    /// One horizontal bar per item (value ≥ 0), scaled to the largest, with its value printed.
    static func bars(
        title: String, items: [(label: String, value: Double, text: String)], color: String = "#2563eb"
    ) -> String {
        let width = 640, rowH = 26.0, labelW = 230.0, valueW = 110.0
        let height = Int(max(1, Double(items.count)) * rowH + 12)
        let maxValue = max(items.map(\.value).max() ?? 0, 1e-9)
        var svg = open(title, width: width, height: height)
        for (i, item) in items.enumerated() {
            let y = 6 + Double(i) * rowH
            let w = (Double(width) - labelW - valueW) * item.value / maxValue
            svg +=
                """
                <text x=\"\(number(labelW - 8))\" y=\"\(number(y + 16))\" text-anchor=\"end\" \
                class=\"label\">\(escape(item.label))</text>
                """
            svg +=
                """
                <rect x=\"\(number(labelW))\" y=\"\(number(y + 3))\" width=\"\(number(max(w, 1)))\" \
                height=\"\(number(rowH - 8))\" fill=\"\(color)\" rx=\"2\"/>
                """
            svg +=
                """
                <text x=\"\(number(labelW + w + 6))\" y=\"\(number(y + 16))\" \
                class=\"value\">\(escape(item.text))</text>
                """
        }
        if items.isEmpty {
            svg += "<text x=\"\(width / 2)\" y=\"24\" text-anchor=\"middle\" class=\"axis\">none</text>"
        }
        return svg + "</svg>"
    }

    /// Per group, one dot per measure with its interval as a whisker, on a 0–100% axis.
    static func intervals(
        title: String,
        groups: [(label: String, points: [(measure: String, value: Double?, low: Double?, high: Double?)])],
        measures: [String]
    ) -> String {
        let width = 640, labelW = 150.0, right = 20.0, rowH = 22.0, groupGap = 10.0, top = 30.0
        let perGroup = Double(measures.count) * rowH + groupGap
        let height = Int(top + max(1, Double(groups.count)) * perGroup + 24)
        let plotW = Double(width) - labelW - right
        func x(_ v: Double) -> Double { labelW + plotW * v }
        var svg = open(title, width: width, height: height)
        for step in 0...4 {
            let v = Double(step) / 4
            svg +=
                """
                <line x1=\"\(number(x(v)))\" x2=\"\(number(x(v)))\" y1=\"\(number(top - 6))\" \
                y2=\"\(height - 20)\" class=\"grid\"/>
                """
            svg +=
                """
                <text x=\"\(number(x(v)))\" y=\"\(height - 6)\" text-anchor=\"middle\" \
                class=\"axis\">\(Int(v * 100))%</text>
                """
        }
        for (m, measure) in measures.enumerated() {
            svg +=
                """
                <rect x=\"\(number(labelW + Double(m) * 110))\" y=\"6\" width=\"10\" height=\"10\" \
                fill=\"\(palette[m % palette.count])\"/>
                """
            svg +=
                """
                <text x=\"\(number(labelW + Double(m) * 110 + 14))\" y=\"15\" \
                class=\"label\">\(escape(measure))</text>
                """
        }
        for (g, group) in groups.enumerated() {
            let gy = top + Double(g) * perGroup
            svg +=
                """
                <text x=\"\(number(labelW - 8))\" y=\"\(number(gy + rowH * Double(measures.count) / 2 + 4))\" \
                text-anchor=\"end\" class=\"label\">\(escape(group.label))</text>
                """
            for (m, point) in group.points.enumerated() {
                let y = gy + Double(m) * rowH + rowH / 2
                let color = palette[m % palette.count]
                if let low = point.low, let high = point.high {
                    svg +=
                        """
                        <line x1=\"\(number(x(low)))\" x2=\"\(number(x(high)))\" y1=\"\(number(y))\" \
                        y2=\"\(number(y))\" stroke=\"\(color)\" stroke-width=\"2\"/>
                        """
                    for end in [low, high] {
                        svg +=
                            """
                            <line x1=\"\(number(x(end)))\" x2=\"\(number(x(end)))\" y1=\"\(number(y - 5))\" \
                            y2=\"\(number(y + 5))\" stroke=\"\(color)\" stroke-width=\"2\"/>
                            """
                    }
                }
                if let value = point.value {
                    svg +=
                        """
                        <circle cx=\"\(number(x(value)))\" cy=\"\(number(y))\" r=\"4.5\" \
                        fill=\"\(color)\"><title>\(escape(group.label)) \(escape(point.measure)): \
                        \(Display.percent(value))</title></circle>
                        """
                }
            }
        }
        if groups.isEmpty {
            svg +=
                """
                <text x=\"\(width / 2)\" y=\"\(number(top + 16))\" text-anchor=\"middle\" class=\"axis\">no \
                cohort this week</text>
                """
        }
        return svg + "</svg>"
    }
}
