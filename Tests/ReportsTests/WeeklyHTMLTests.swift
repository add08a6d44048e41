import Foundation
import Postgres
import PushLedgerSupport
import TestSupport
import Testing

@testable import Reports

/// The HTML weekly report opened in headless Chromium (Debian `chromium`): it must load with no
/// console message, at laptop and phone widths; the screenshots are kept under artifacts/.
@Suite("Weekly HTML report in headless Chromium")
struct WeeklyHTMLTests {
    static let artifacts = TestDatabase.repositoryRoot.appendingPathComponent("artifacts")

    /// Loads `html` and returns Chromium's console lines; writes the page and its screenshot
    /// (or, with `pdf`, the page printed with the print stylesheet).
    static func open(
        _ html: String, name: String, width: Int, height: Int, pdf: Bool = false
    ) throws -> (console: [String], screenshot: URL) {
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let page = artifacts.appendingPathComponent("\(name).html")
        let screenshot = artifacts.appendingPathComponent(pdf ? "\(name).pdf" : "\(name)-\(width)x\(height).png")
        try html.write(to: page, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(at: screenshot)
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("pl-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let binary = try #require(
            ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            },
            "install Debian's chromium (make test does)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)",
            pdf ? "--print-to-pdf=\(screenshot.path)" : "--screenshot=\(screenshot.path)",
            "--no-pdf-header-footer", "--window-size=\(width),\(height)", "--hide-scrollbars",
            "--enable-logging=stderr", "--v=0", page.absoluteString,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "chromium exited with \(process.terminationStatus)")
        return (log.split(separator: "\n").filter { $0.contains("CONSOLE") }.map(String.init), screenshot)
    }

    /// The DOM headless Chromium built from `html` (`--dump-dom`).
    static func dom(_ html: String) throws -> String {
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let page = artifacts.appendingPathComponent("weekly-report-dom.html")
        try html.write(to: page, atomically: true, encoding: .utf8)
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("pl-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let binary = try #require(
            ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)", "--dump-dom",
            page.absoluteString,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let dom = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return dom
    }

    @Test func theHarnessSeesConsoleErrors() throws {
        let result = try Self.open(
            "<!DOCTYPE html><html><body><script>console.error('broken')</script></body></html>",
            name: "harness-check", width: 400, height: 300)
        #expect(result.console.contains { $0.contains("broken") })
    }

    @Test func theWeeklyReportLoadsCleanlyOnALaptopAndAPhone() throws {
        let showcase = try Showcase()
        let report = try WeeklyReport.refreshed(connection: showcase.connection, app: Fixture.app, week: Showcase.week)
        #expect(report.promptTiming.cohorts.count == 2 && report.channels.count == 2 && !report.rejections.isEmpty)
        #expect(Set(report.trend.map(\.week)).count == WeeklyReport.trendWeeks)
        let html = report.html
        // Self-contained: nothing to fetch, no script.
        for forbidden in ["<script", "src=", "href=", "@import", "url(", "https://"] {
            #expect(!html.contains(forbidden), "page contains \(forbidden)")
        }
        #expect(html.contains("@media print") && html.contains("@media (max-width:600px)") && html.contains("<svg"))
        #expect(html.components(separatedBy: "<svg").count - 1 == 6)
        #expect(!report.causeSlices.isEmpty && report.headline.current.causes != nil)
        for (width, height) in [(1280, 2400), (390, 3200)] {
            let result = try Self.open(html, name: "weekly-report", width: width, height: height)
            #expect(result.console.isEmpty, "console: \(result.console)")
            let png = try Data(contentsOf: result.screenshot)
            #expect(png.count > 10_000 && png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        }
        // What the browser built from the page: the new sections, their charts and the headline's
        // unexplained rate beside silent loss.
        let dom = try Self.dom(html)
        for heading in [
            "<h2>Why unconfirmed</h2>", "<h2>Delivery latency</h2>", "silent loss: unexplained",
            "Why unconfirmed: causes per platform and channel", "Delivery latency per platform and channel",
            "<title>Causes of unconfirmed sends per platform and channel, week over week</title>",
            "<title>Time to receipt per platform and channel, week over week</title>",
            "<h2>Web push per browser</h2>", "<h2>Web push per push service</h2>", "<td>chrome</td>",
        ] {
            #expect(dom.contains(heading), "the rendered page lacks \(heading)")
        }
        for cause in ["superseded", "app_stopped", "expired", "device_inactive", "unexplained", "lt_10s", "ge_24h"] {
            #expect(dom.contains(">\(cause)</text>"), "chart legend \(cause)")
        }
        let printed = try Self.open(html, name: "weekly-report", width: 1280, height: 2400, pdf: true)
        #expect(printed.console.isEmpty, "console: \(printed.console)")
        #expect(try Data(contentsOf: printed.screenshot).prefix(5) == Data("%PDF-".utf8))
    }
}

/// Eight weeks of sends with a trend, rejections and opens, plus the prompt-timing fleet.
struct Showcase {
    static let week = ISOWeek(year: 2026, week: 45)!
    let connection: Connection

    init() throws {
        var fixture = try Fixture()
        _ = try PromptFixture(count: 120, into: fixture)
        let (shown, quiet) = (Fixture.id(0x1c, 1), Fixture.id(0x1c, 2))
        let start = Self.week.start().addingTimeInterval(-7 * 7 * 86_400)
        try fixture.installation(shown, platform: "android", firstSeen: start)
        try fixture.installation(quiet, platform: "ios", firstSeen: start, appVersion: "3.0")
        try fixture.snapshot(
            shown, at: start, platform: "android", enabled: true,
            channels: [.init(id: "orders", importance: 4), .init(id: "promotions", importance: 3)])
        try fixture.snapshot(
            quiet, at: start, platform: "ios", appVersion: "3.0", authorization: "authorized", alert: "enabled")
        // A Chrome installation on the web: the report's web push part.
        let browser = Fixture.id(0x1c, 3)
        try fixture.installation(browser, platform: "web", firstSeen: start)
        try fixture.snapshot(browser, at: start, platform: "web", authorization: "authorized", browser: "chrome")
        for day in 0..<56 {
            let notification = Fixture.id(0x43, day)
            let at = start.addingTimeInterval(Double(day) * 86_400 + 7_200)
            try fixture.send(
                notification: notification, installation: browser, at: at, provider: "webpush",
                token: "https://fcm.googleapis.com/fcm/send/showcase", status: 201, pushService: "fcm")
            if day % 3 != 0 {
                try fixture.receipt(
                    notification, installation: browser, at: at.addingTimeInterval(5), platform: "web",
                    appVersion: "5.2.0")
            }
        }
        var n = 0
        for day in 0..<56 {
            for k in 0..<12 {
                n += 1
                let at = start.addingTimeInterval(Double(day) * 86_400 + Double(k) * 1800 + 3600)
                let ios = k % 3 == 0
                let notification = Fixture.id(0x42, n)
                let status = k == 5 ? (day % 2 == 0 ? 410 : 429) : (k == 7 && day % 3 == 0 ? 400 : 200)
                let reason =
                    status == 410
                    ? "Unregistered" : status == 429 ? "TooManyRequests" : status == 400 ? "BadDeviceToken" : nil
                try fixture.send(
                    notification: notification, installation: ios ? quiet : shown, at: at,
                    provider: ios ? "apns" : "fcm",
                    channel: k % 2 == 0 ? "orders" : "promotions", status: status, reason: reason)
                // Receipts thin out week by week on promotions: the silent loss trend.
                if status == 200, k % 2 == 0 || k > day / 7 + 3 {
                    try fixture.receipt(
                        notification, installation: ios ? quiet : shown, at: at.addingTimeInterval(5),
                        platform: ios ? "ios" : "android", appVersion: ios ? "3.0" : "5.2.0")
                    if k % 4 == 0 {
                        try fixture.open(
                            notification, installation: ios ? quiet : shown, at: at.addingTimeInterval(60),
                            platform: ios ? "ios" : "android", landed: k == 8 ? "fallback" : "target")
                    }
                }
            }
        }
        connection = fixture.connection
    }
}
