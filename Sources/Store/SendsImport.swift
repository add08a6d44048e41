import Foundation
import Postgres
import PushLedgerContract

/// A sender's NDJSON log of APNs/FCM results, imported through the same validation and storage
/// path as `POST /v1/sends`: whole lines in chunks, each chunk validated and written in its own
/// transaction, so memory stays bounded and a re-import only counts duplicates.
public struct SendsImporter: Sendable {
    /// Lines per transaction a chunk may hold (the contract's per-request limit scaled up for files).
    public static let chunkLines = 1...100_000
    /// Lines per transaction unless asked otherwise: the contract's events per request.
    public static let defaultChunk = IngestLimits().maxEventsPerRequest

    /// The app the sends belong to; a line of another app is rejected as `app_mismatch`.
    public var app: String
    public var limits: IngestLimits
    public var linesPerChunk: Int

    /// - Parameter allowOld: lift the contract's age limit (back-fills).
    public init(app: String, linesPerChunk: Int = SendsImporter.defaultChunk, allowOld: Bool = false) {
        precondition(Self.chunkLines.contains(linesPerChunk), "chunk of \(linesPerChunk) lines")
        self.app = app
        self.linesPerChunk = linesPerChunk
        limits = IngestLimits()
        limits.maxEventsPerRequest = linesPerChunk
        if allowOld { limits.maxAge = nil }
    }

    /// Imports `handle` to its end. `rejected` sees every invalid line (it is also kept in the
    /// failed-event store); `progress` sees the running totals after each chunk.
    public func run(
        reading handle: FileHandle, on connection: Connection, now: () -> Date = Date.init,
        rejected: (LineRejection) -> Void = { _ in }, progress: (ImportTotals) -> Void = { _ in }
    ) throws -> ImportTotals {
        let writer = EventWriter()
        var totals = ImportTotals()
        var reader = LineChunker(handle: handle, linesPerChunk: linesPerChunk)
        while let chunk = try reader.next() {
            let receivedAt = now()
            let checked: ValidatedSends
            do {
                checked = try SendsValidator.validate(
                    body: chunk.bytes, format: .ndjson, keyAppID: app, receivedAt: receivedAt, limits: limits)
            } catch {
                throw ImportError(message: error.message, line: chunk.firstLine + 1)
            }
            let outcome = try writer.write([.sends(checked, appID: app, receivedAt: receivedAt)], on: connection)[0]
            totals.add(checked, outcome: outcome)
            for rejection in checked.rejections {
                rejected(
                    LineRejection(
                        line: chunk.firstLine + rejection.index + 1, code: rejection.code.rawValue,
                        message: rejection.message))
            }
            progress(totals)
        }
        return totals
    }
}

/// A chunk the contract refuses as a whole (e.g. a line over the event size limit).
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// 1-based first line of the refused chunk.
    public var line: Int
    public var description: String { message }
}

/// One invalid line: 1-based line number, contract error code and message.
public struct LineRejection: Sendable, Equatable {
    public var line: Int
    public var code: String
    public var message: String
}

/// Counts for the closing summary.
public struct ImportTotals: Sendable, Equatable {
    public var lines = 0
    public var accepted = 0
    public var duplicates = 0
    public var rejectedByCode: [String: Int] = [:]

    public init() {}

    mutating func add(_ checked: ValidatedSends, outcome: WriteOutcome) {
        lines += checked.sends.count + checked.rejections.count
        accepted += outcome.accepted
        duplicates += outcome.duplicates
        for r in checked.rejections { rejectedByCode[r.code.rawValue, default: 0] += 1 }
    }

    public var rejected: Int { rejectedByCode.values.reduce(0, +) }

    /// "imported 5000 sends: 4997 stored, 0 duplicates, 3 rejected (app_mismatch 1, …)".
    public var summary: String {
        var text = "imported \(lines) sends: \(accepted) stored, \(duplicates) duplicates, \(rejected) rejected"
        if !rejectedByCode.isEmpty {
            text +=
                " (" + rejectedByCode.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                + ")"
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
                if newlines == linesPerChunk {
                    cut = i + 1
                    break
                }
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
