import Foundation
import PushLedgerSupport
import PushLedgerCLI
import Store

/// `pushledger import sends FILE|-`: a sender's NDJSON log through ``SendsImporter``, with
/// progress on stderr; `import fcm-delivery-data`: FCM's Data API pages through ``FCMDeliveryData``.
enum ImportCommand: Command {
    static let spec = CommandSpec(
        "import", summary: "Load a sender's NDJSON log of APNs/FCM results, or FCM's delivery data",
        subcommands: [
            CommandSpec(
                "sends", summary: "Import sends (one JSON object per line) from FILE or - for stdin",
                discussion: "Each line is validated exactly like POST /v1/sends; invalid lines go to the failed-event store and are counted, the rest are stored once (re-importing a file only counts duplicates).",
                options: [
                    .value("app", help: "The app id the sends belong to (lines of other apps are rejected as app_mismatch)", required: true),
                    .flag("allow-old", help: "Lift the 30-day age limit (back-fills)"),
                    .value("chunk", type: .integer, help: "Lines per transaction", default: "\(SendsImporter.defaultChunk)"),
                ],
                positionals: [PositionalSpec("file", help: "NDJSON file, or - for standard input")]),
            CommandSpec(
                "fcm-delivery-data", summary: "Import FCM Aggregated Delivery Data (Data API androidApps.deliveryData.list pages)",
                discussion: "FILE holds one answer page, an array of pages, or one page per line, as downloaded from fcmdata.googleapis.com. Entries are stored as given; importing a day again replaces that day. Input with any bad entry is refused whole.",
                options: [
                    .value("app", help: "The PushLedger app id the data belongs to", required: true),
                    .value("fcm-app-id", help: "Firebase app id, e.g. 1:123456789:android:abc123 (every entry must carry it)", required: true),
                ],
                positionals: [PositionalSpec("file", help: "JSON file, or - for standard input")])
        ])

    /// Invalid lines logged one by one; the summary counts them all.
    static let loggedRejections = 20

    static func run(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        if command.path.last == "fcm-delivery-data" { return try importFCMDeliveryData(context) }
        let path = try command.argument("file")
        let importer = SendsImporter(
            app: try command.value(String.self, "app"), linesPerChunk: try command.int("chunk", in: SendsImporter.chunkLines),
            allowOld: command.flag("allow-old"))
        let handle: FileHandle
        if path == "-" {
            handle = .standardInput
        } else {
            guard let file = FileHandle(forReadingAtPath: path) else {
                throw CommandFailure(message: "cannot open \(path)")
            }
            handle = file
        }
        let connection = try context.connect()
        let progress = Progress(logger: context.logger)
        var logged = 0
        do {
            let totals = try importer.run(
                reading: handle, on: connection,
                rejected: { rejection in
                    guard logged < loggedRejections else { return }
                    logged += 1
                    context.logger.warning("line rejected", ["line": rejection.line, "error": rejection.code, "message": rejection.message])
                },
                progress: { progress.report(lines: $0.lines) })
            context.print(totals.summary)
        } catch let error as ImportError {
            throw CommandFailure(message: "\(error.message) (lines from \(error.line))")
        }
        return 0
    }
}

/// Progress lines on stderr at most once a second.
final class Progress {
    let logger: Logger
    let started = Date()
    var last = Date.distantPast

    init(logger: Logger) { self.logger = logger }

    func report(lines: Int) {
        let now = Date()
        guard now.timeIntervalSince(last) >= 1 else { return }
        last = now
        let rate = Double(lines) / max(now.timeIntervalSince(started), 0.001)
        logger.info("importing", ["lines": lines, "per_second": Int(rate)])
    }
}

extension ImportCommand {
    /// `import fcm-delivery-data`: validates every entry, then replaces the days they cover.
    static func importFCMDeliveryData(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        let path = try command.argument("file")
        let app = try command.value(String.self, "app")
        let fcmAppID = try command.value(String.self, "fcm-app-id")
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let file = FileManager.default.contents(atPath: path) else { throw CommandFailure(message: "cannot open \(path)") }
            data = file
        }
        let entries: [FCMDeliveryData.Entry]
        do throws(FCMDeliveryData.ImportError) {
            entries = try FCMDeliveryData.entries(in: Array(data), fcmAppID: fcmAppID)
        } catch {
            throw CommandFailure(message: "\(path): \(error.description); nothing imported", exitCode: 65)
        }
        let days = try FCMDeliveryData().store(entries, app: app, fcmAppID: fcmAppID, on: context.connect())
        let span = days.first.map { first in " (\(first.iso) to \(days.last!.iso), America/Los_Angeles)" } ?? ""
        context.print("imported \(entries.count) FCM delivery entries for \(days.count) days\(span)")
        return 0
    }
}
