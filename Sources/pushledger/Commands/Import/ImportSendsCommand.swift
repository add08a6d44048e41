import CommandLineParsing
import Foundation
import PushLedgerSupport
import Store

/// `pushledger import sends FILE|-`: a sender's NDJSON log through ``SendsImporter``, with
/// progress on stderr.
struct ImportSendsCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "sends", summary: "Import sends (one JSON object per line) from FILE or - for stdin",
            discussion: """
                Each line is validated exactly like POST /v1/sends; invalid lines go to the failed-event store and are \
                counted, the rest are stored once (re-importing a file only counts duplicates).
                """)
    }

    /// Invalid lines logged one by one; the summary counts them all.
    static let loggedRejections = 20

    @Option(help: "The app id the sends belong to (lines of other apps are rejected as app_mismatch)")
    var app: String

    @Flag(help: "Lift the 30-day age limit (back-fills)")
    var allowOld: Bool

    @Option(help: "Lines per transaction", default: SendsImporter.defaultChunk)
    var chunk: Int

    @Argument(help: "NDJSON file, or - for standard input")
    var file: String

    func run(_ context: CommandContext) throws -> Int32 {
        let importer = SendsImporter(
            app: app, linesPerChunk: try $chunk.within(SendsImporter.chunkLines), allowOld: allowOld)
        let handle: FileHandle
        if file == "-" {
            handle = .standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: file) else {
                throw CommandFailure(message: "cannot open \(file)")
            }
            handle = opened
        }
        let connection = try context.connect()
        let progress = Progress(logger: context.logger)
        var logged = 0
        do {
            let totals = try importer.run(
                reading: handle, on: connection,
                rejected: { rejection in
                    guard logged < Self.loggedRejections else { return }
                    logged += 1
                    context.logger.warning(
                        "line rejected",
                        ["line": rejection.line, "error": rejection.code, "message": rejection.message])
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
