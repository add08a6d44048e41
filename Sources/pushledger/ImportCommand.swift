import Foundation
import PushLedgerSupport
import PushLedgerContract
import PushLedgerCLI
import Store

/// `pushledger import sends FILE|-`: a sender's NDJSON log through the same validation and
/// storage path as `POST /v1/sends`, in chunks, with progress on stderr.
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
                    .value("chunk", type: .integer, help: "Lines per transaction", default: "2000"),
                ],
                positionals: [PositionalSpec("file", help: "NDJSON file, or - for standard input")]),
            CommandSpec(
                "fcm-delivery-data", summary: "Import FCM Aggregated Delivery Data (Data API androidApps.deliveryData.list pages)",
                discussion: "FILE holds one answer page, an array of pages, or one page per line, as downloaded from fcmdata.googleapis.com. Entries are stored as given; importing a day again replaces that day. Input with any bad entry is refused whole.",
                options: [
                    .value("app", help: "The PushLedger app id the data belongs to", required: true),
                    .value("fcm-app-id", help: "Firebase app id, e.g. 1:123456789:android:abc123 (every entry must carry it)", required: true),
                ],
                positionals: [PositionalSpec("file", help: "JSON file, or - for standard input")]),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        if command.path.last == "fcm-delivery-data" { return try importFCMDeliveryData(context) }
        let path = command.positional("file")!
        let app = command.string("app")!
        let chunkLines = command.integer("chunk")!
        guard chunkLines >= 1 && chunkLines <= 100_000 else {
            throw CommandFailure(message: "--chunk must be between 1 and 100000", exitCode: 64)
        }
        let handle: FileHandle
        if path == "-" {
            handle = .standardInput
        } else {
            guard let file = FileHandle(forReadingAtPath: path) else {
                throw CommandFailure(message: "cannot open \(path)")
            }
            handle = file
        }
        var limits = IngestLimits()
        limits.maxEventsPerRequest = chunkLines
        if command.flag("allow-old") { limits.maxAge = nil }

        let connection = try context.connect()
        let writer = EventWriter()
        var totals = ImportTotals()
        let progress = Progress(logger: context.logger)
        var reader = LineChunker(handle: handle, linesPerChunk: chunkLines)
        while let chunk = try reader.next() {
            let checked = try validate(chunk.bytes, app: app, limits: limits)
            let outcome = try writer.write([.sends(checked, appID: app, receivedAt: Date())], on: connection)[0]
            totals.add(checked, outcome: outcome, firstLine: chunk.firstLine)
            for rejection in checked.rejections.prefix(max(0, 20 - totals.shownRejections)) {
                context.logger.warning(
                    "line rejected", ["line": chunk.firstLine + rejection.index + 1, "error": rejection.code.rawValue, "message": rejection.message])
                totals.shownRejections += 1
            }
            progress.report(lines: totals.lines)
        }
        context.print(totals.summary)
        return 0
    }

    private static func validate(_ bytes: [UInt8], app: String, limits: IngestLimits) throws -> ValidatedSends {
        do {
            return try SendsValidator.validate(body: bytes, format: .ndjson, keyAppID: app, receivedAt: Date(), limits: limits)
        } catch {
            throw CommandFailure(message: error.message)
        }
    }
}

/// Counts for the closing summary.
struct ImportTotals {
    var lines = 0
    var accepted = 0
    var duplicates = 0
    var rejectedByCode: [String: Int] = [:]
    var shownRejections = 0

    mutating func add(_ checked: ValidatedSends, outcome: WriteOutcome, firstLine: Int) {
        lines += checked.sends.count + checked.rejections.count
        accepted += outcome.accepted
        duplicates += outcome.duplicates
        for r in checked.rejections { rejectedByCode[r.code.rawValue, default: 0] += 1 }
    }

    var summary: String {
        let rejected = rejectedByCode.values.reduce(0, +)
        var text = "imported \(lines) sends: \(accepted) stored, \(duplicates) duplicates, \(rejected) rejected"
        if !rejectedByCode.isEmpty {
            text += " (" + rejectedByCode.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        return text
    }
}

/// Reads a stream in chunks of whole lines without loading it all.
struct LineChunker {
    struct Chunk {
        var bytes: [UInt8]
        /// 0-based line number of the chunk's first line in the whole input.
        var firstLine: Int
    }

    let handle: FileHandle
    let linesPerChunk: Int
    private var pending: [UInt8] = []
    private var finished = false
    private var linesSoFar = 0

    init(handle: FileHandle, linesPerChunk: Int) {
        self.handle = handle
        self.linesPerChunk = linesPerChunk
    }

    mutating func next() throws -> Chunk? {
        while true {
            var newlines = 0
            var cut: Int?
            for (i, byte) in pending.enumerated() where byte == UInt8(ascii: "\n") {
                newlines += 1
                if newlines == linesPerChunk { cut = i + 1; break }
            }
            if let cut {
                return take(cut, lines: linesPerChunk)
            }
            if finished {
                guard !pending.isEmpty else { return nil }
                let lines = newlines + (pending.last == UInt8(ascii: "\n") ? 0 : 1)
                return take(pending.count, lines: lines)
            }
            let data = try handle.read(upToCount: 1 << 20) ?? Data()
            if data.isEmpty { finished = true } else { pending.append(contentsOf: data) }
        }
    }

    private mutating func take(_ count: Int, lines: Int) -> Chunk {
        let chunk = Chunk(bytes: Array(pending[0..<count]), firstLine: linesSoFar)
        pending.removeFirst(count)
        linesSoFar += lines
        return chunk
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
        let path = command.positional("file")!
        let fcmAppID = command.string("fcm-app-id")!
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
        let days = try FCMDeliveryData().store(entries, app: command.string("app")!, fcmAppID: fcmAppID, on: context.connect())
        let span = days.isEmpty ? "" : " (\(days.first!.iso) to \(days.last!.iso), America/Los_Angeles)"
        context.print("imported \(entries.count) FCM delivery entries for \(days.count) days\(span)")
        return 0
    }
}
