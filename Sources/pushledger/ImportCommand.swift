import Foundation
import PushLedgerSupport
import PushLedgerCLI
import Store

/// `pushledger import sends FILE|-`: a sender's NDJSON log through ``SendsImporter``, with
/// progress on stderr.
enum ImportCommand: Command {
    static let spec = CommandSpec(
        "import", summary: "Load a sender's NDJSON log of APNs/FCM results",
        subcommands: [
            CommandSpec(
                "sends", summary: "Import sends (one JSON object per line) from FILE or - for stdin",
                discussion: "Each line is validated exactly like POST /v1/sends; invalid lines go to the failed-event store and are counted, the rest are stored once (re-importing a file only counts duplicates).",
                options: [
                    .value("app", help: "The app id the sends belong to (lines of other apps are rejected as app_mismatch)", required: true),
                    .flag("allow-old", help: "Lift the 30-day age limit (back-fills)"),
                    .value("chunk", type: .integer, help: "Lines per transaction", default: "\(SendsImporter.defaultChunk)"),
                ],
                positionals: [PositionalSpec("file", help: "NDJSON file, or - for standard input")])
        ])

    /// Invalid lines logged one by one; the summary counts them all.
    static let loggedRejections = 20

    static func run(_ context: CommandContext) throws -> Int32 {
        let command = context.command
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
