import Foundation
import Postgres
import PushLedgerContract
import Store
import Testing

/// `SendsImporter` on a real throwaway database: whole lines in chunks, each through the
/// contract's validator and the event writer.
@Suite struct SendsImportTests {
    typealias F = Fixture
    let db: StoreDatabase
    init() throws { db = try StoreDatabase() }

    /// One NDJSON send line, sent `hours` after the fixture's noon.
    private func line(_ n: Int, app: String = F.app, hours: Double = -1) -> String {
        let stamp = ISO8601DateFormatter().string(from: F.time(hours))
        return
            #"{"event_id":"\#(F.event(n).uuidString.lowercased())","#
            + #""notification_id":"\#(F.notification(n).uuidString.lowercased())","app_id":"\#(app)","#
            + #""provider":"fcm","token":"tok-\#(n)","channel":"orders","sent_at":"\#(stamp)","status":200}"#
    }

    private func file(_ lines: [String], newlineAtEnd: Bool = true) throws -> FileHandle {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sends-\(UUID()).ndjson")
        try (lines.joined(separator: "\n") + (newlineAtEnd ? "\n" : "")).write(
            to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        return try FileHandle(forReadingFrom: url)
    }

    private func run(_ importer: SendsImporter, _ handle: FileHandle) throws -> (ImportTotals, [LineRejection], [Int]) {
        var rejections: [LineRejection] = []
        var progress: [Int] = []
        let totals = try importer.run(
            reading: handle, on: db.connection, now: { F.time(0) }, rejected: { rejections.append($0) },
            progress: { progress.append($0.lines) })
        return (totals, rejections, progress)
    }

    @Test func chunksOfWholeLinesAreStoredOnceAndBadLinesCountedWithTheirLineNumbers() throws {
        var lines = (0..<25).map { line($0) }
        lines[3] = "{not json"
        lines[7] = line(7, app: "com.other.app")
        lines[11] = line(11, hours: -40 * 24)
        let (totals, rejections, progress) = try run(
            SendsImporter(app: F.app, linesPerChunk: 10), try file(lines, newlineAtEnd: false))
        #expect(totals.lines == 25 && totals.accepted == 22 && totals.duplicates == 0 && totals.rejected == 3)
        #expect(totals.rejectedByCode == ["invalid_field": 1, "app_mismatch": 1, "too_old": 1])
        #expect(rejections.map(\.line) == [4, 8, 12])
        #expect(rejections.map(\.code) == ["invalid_field", "app_mismatch", "too_old"])
        #expect(progress == [10, 20, 25], "one report per chunk of ten lines")
        #expect(try db.count("sends") == 22)
        #expect(try db.count("failed_events") == 3)
        #expect(
            totals.summary
                == "imported 25 sends: 22 stored, 0 duplicates, 3 rejected (app_mismatch 1, invalid_field 1, too_old 1)"
        )
    }

    @Test func aReimportOnlyCountsDuplicatesAndAllowOldLiftsTheAgeLimit() throws {
        let lines = (0..<5).map { line($0) } + [line(5, hours: -40 * 24)]
        let (first, _, _) = try run(SendsImporter(app: F.app), try file(lines))
        #expect(first.accepted == 5 && first.rejectedByCode == ["too_old": 1])
        let (again, rejections, _) = try run(SendsImporter(app: F.app, allowOld: true), try file(lines))
        #expect(again.accepted == 1 && again.duplicates == 5 && again.rejected == 0 && rejections.isEmpty)
        #expect(try db.count("sends") == 6)
    }

    @Test func emptyInputAndBlankLinesStoreNothing() throws {
        let (empty, _, progress) = try run(SendsImporter(app: F.app), try file([], newlineAtEnd: false))
        #expect(empty == ImportTotals() && progress.isEmpty)
        let (blank, _, _) = try run(SendsImporter(app: F.app, linesPerChunk: 2), try file(["", line(1), "", ""]))
        #expect(blank.lines == 1 && blank.accepted == 1)
        #expect(try db.count("sends") == 1)
    }

    @Test func aLineOverTheEventSizeLimitIsRejectedAlone() throws {
        let huge =
            #"{"event_id":"\#(F.event(99).uuidString.lowercased())","pad":""# + String(repeating: "x", count: 40_000)
            + #""}"#
        let (totals, rejections, _) = try run(
            SendsImporter(app: F.app, linesPerChunk: 2), try file([line(0), huge, line(1)]))
        #expect(totals.accepted == 2 && rejections.map(\.line) == [2] && rejections.map(\.code) == ["too_large"])
        #expect(try db.count("sends") == 2)
    }

    /// A chunk the contract refuses as a whole stops the import, naming the chunk's first line;
    /// the chunks before it stay stored.
    @Test func aChunkRefusedAsAWholeStopsTheImportNamingItsFirstLine() throws {
        var importer = SendsImporter(app: F.app, linesPerChunk: 2)
        importer.limits.maxEventsPerRequest = 1
        var thrown: ImportError?
        do {
            _ = try run(importer, try file([line(0), line(1)]))
        } catch let error as ImportError {
            thrown = error
        }
        let error = try #require(thrown)
        #expect(error.line == 1)
        #expect(error.message.contains("1"), "\(error.message)")
        #expect(try db.count("sends") == 0)
    }
}
