import Foundation
import Testing

@testable import PushLedgerKit

/// The shared table of answers to an upload (Tests/Fixtures/upload-answers.json): every row's
/// answer classified by the uploader for a batch of two events. The Android SDK's core plays the
/// same rows against a real flush.
@Suite("Upload answers")
struct UploadAnswerTableTests {
    static func table() throws -> [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/upload-answers.json")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    static let batch = Batch(
        context: JournalContext(appVersion: "5.2.0", osVersion: "18.1", sdkInt: nil),
        entries: [UUID(), UUID()].map {
            JournalEntry(name: "0000000000000001-\($0.uuidString.lowercased()).event", bytes: 10)
        })

    /// The table's word for what the journal does with the batch.
    static func word(_ outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .stored: "stored"
        case .refused(let rejected) where rejected.count == batch.entries.count: "refused"
        case .refused: "refused only some"
        case .tooLarge: "split"
        case .failed(.unavailable, true, _): "retry"
        case .failed(.unauthorized, false, _): "unauthorized"
        case .failed(.unexpected, false, _): "unexpected"
        case .failed: "\(outcome)"
        }
    }

    @Test func theRefusalCodesAreTheTablesOwn() throws {
        #expect(try Self.table()["refusal_codes"] as? [String] == Uploader.refusalCodes)
    }

    @Test func everyRowOfTheSharedTableHasItsOutcome() throws {
        let rows = try #require(try Self.table()["rows"] as? [[String: Any]])
        #expect(rows.count >= 20)
        for row in rows {
            var headers: [String: String] = [:]
            if let type = row["content_type"] as? String { headers["Content-Type"] = type }
            let retryAfter = row["retry_after"] as? String
            if let retryAfter { headers["Retry-After"] = retryAfter }
            let response = TransportResponse(
                status: try #require(row["status"] as? Int), headers: headers,
                body: Data(try #require(row["body"] as? String).utf8))
            let outcome = Uploader.interpret(response, batch: Self.batch)
            #expect(Self.word(outcome) == row["outcome"] as? String, "\(row)")
            if case .failed(_, true, let after) = outcome { #expect(after == retryAfter, "\(row)") }
        }
    }

    @Test func aSingleEventIsDroppedOn413OnlyWhenPushLedgerSaysSo() {
        var one = Self.batch
        one.entries.removeLast()
        let proxy = TransportResponse(status: 413, headers: ["Content-Type": "text/html"], body: Data("<html/>".utf8))
        #expect(Self.word(Uploader.interpret(proxy, batch: one)) == "unexpected")
        let own = TransportResponse(
            status: 413, headers: ["Content-Type": "application/json"],
            body: Data(#"{"error":"body_too_large","message":"over 1048576 bytes"}"#.utf8))
        #expect(Self.word(Uploader.interpret(own, batch: one)) == "split")
    }
}
