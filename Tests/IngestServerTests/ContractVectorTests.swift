import Foundation
import Postgres
import PushLedgerContract
import TestSupport
import Testing

@testable import IngestServer

/// The contract vectors of docs/contract/vectors: each request gets exactly its expected answer,
/// first as a dry run (which must leave every table as it was), then for real.
@Suite("Contract vectors")
struct ContractVectorTests {
    static let directory = TestDatabase.repositoryRoot.appendingPathComponent("docs/contract/vectors")

    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".json") }
            .sorted()
    }

    /// A vector with its placeholders filled: `{{now}}`, `{{now-31d}}`, `{{now+2d}}`, and
    /// `{{id:NAME}}` (a fresh UUID per run, the same within the file).
    struct Vector {
        var path: String
        var key: String?
        var contentType: String
        var body: [UInt8]
        var status: Int
        var answer: Any

        init(file: String, now: Date = Date()) throws {
            var text = try String(
                contentsOf: ContractVectorTests.directory.appendingPathComponent(file), encoding: .utf8)
            for (token, offset) in [("{{now}}", 0.0), ("{{now-31d}}", -31 * 86_400.0), ("{{now+2d}}", 2 * 86_400.0)] {
                text = text.replacingOccurrences(of: token, with: RFC3339.format(now.addingTimeInterval(offset)))
            }
            var ids: [String: String] = [:]
            while let range = text.range(of: #"\{\{id:[a-z0-9_]+\}\}"#, options: .regularExpression) {
                let name = String(text[range])
                let id = ids[name] ?? UUID().uuidString.lowercased()
                ids[name] = id
                text = text.replacingOccurrences(of: name, with: id)
            }
            let vector = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            path = try #require(vector["path"] as? String)
            key = ["telemetry": TestKeys.telemetry, "sends": TestKeys.sends][try #require(vector["key"] as? String)]
            contentType = try #require(vector["content_type"] as? String)
            if let raw = vector["body_text"] as? String {
                body = Array(raw.utf8)
            } else {
                body = [UInt8](
                    try JSONSerialization.data(
                        withJSONObject: try #require(vector["body"]), options: [.withoutEscapingSlashes]))
            }
            let expect = try #require(vector["expect"] as? [String: Any])
            status = try #require(expect["status"] as? Int)
            answer = try #require(expect["body"])
        }
    }

    @Test func thereIsAVectorForEveryCode() throws {
        let text = try Self.names.map {
            try String(contentsOf: Self.directory.appendingPathComponent($0), encoding: .utf8)
        }.joined()
        for code in RejectionCode.allCases.map(\.rawValue) + [
            "invalid_json", "too_many_events", "unauthorized", "forbidden", "unsupported_media_type",
        ] {
            #expect(text.contains("\"error\": \"\(code)\""), "no vector expects \(code)")
        }
        for type in [
            "notification_settings", "permission_prompt", "experiment_exposure", "push_token", "notification_received",
            "notification_opened",
        ] {
            #expect(text.contains("\"type\": \"\(type)\""), "no vector sends \(type)")
        }
    }

    @Test(arguments: names)
    func vectorGetsItsAnswerAndTheDryRunStoresNothing(file: String) throws {
        let harness = try Harness()
        let vector = try Vector(file: file)
        let before = try Self.tableChecksums(harness)
        let dry = try harness.post(
            vector.path + "?dry_run=true", vector.body, key: vector.key, type: vector.contentType)
        #expect(dry.status == vector.status, "\(file) dry run: \(dry.text)")
        #expect(Self.same(dry.body, vector.answer), "\(file) dry run: \(dry.text)")
        #expect(try Self.tableChecksums(harness) == before, "\(file): the dry run changed a table")
        let real = try harness.post(vector.path, vector.body, key: vector.key, type: vector.contentType)
        #expect(real.status == vector.status, "\(file): \(real.text)")
        #expect(Self.same(real.body, vector.answer), "\(file): \(real.text)")
    }

    @Test func aDryRunCountsDuplicatesAgainstWhatIsStored() throws {
        let harness = try Harness()
        let body = Fixtures.telemetry(events: [Fixtures.exposure(), Fixtures.exposure()])
        #expect(try harness.telemetry(body).accepted == 2)
        let again = try harness.post("/v1/telemetry?dry_run=true", body)
        #expect(again.status == 200 && again.accepted == 0 && again.duplicates == 2)
        #expect(try harness.post("/v1/telemetry?dry_run=maybe", body).errorCode == "invalid_query")
        #expect(
            try harness.get("/metrics").text.contains(
                #"pushledger_dry_run_requests_total{endpoint="/v1/telemetry",status="200"} 1"#))
    }

    /// The answer equals the expectation, where an expected string may hold `{{time}}` (any
    /// RFC 3339 time: messages name the skew-corrected time) or `{{int}}` (sizes depend on how
    /// the runner serialized the body).
    static func same(_ body: [UInt8], _ expected: Any) -> Bool {
        guard let actual = try? JSONSerialization.jsonObject(with: Data(body)) else { return false }
        return matches(actual, expected)
    }

    static func matches(_ actual: Any, _ expected: Any) -> Bool {
        switch (actual, expected) {
        case (let a as [String: Any], let e as [String: Any]):
            return Set(a.keys) == Set(e.keys) && e.allSatisfy { key, value in matches(a[key]!, value) }
        case (let a as [Any], let e as [Any]):
            return a.count == e.count && zip(a, e).allSatisfy(matches)
        case (let a as String, let e as String) where e.contains("{{"):
            let pattern =
                "^"
                + NSRegularExpression.escapedPattern(for: e)
                .replacingOccurrences(of: "\\{\\{time\\}\\}", with: "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z")
                .replacingOccurrences(of: "\\{\\{int\\}\\}", with: "[0-9]+") + "$"
            return a.range(of: pattern, options: .regularExpression) != nil
        case (is NSNull, is NSNull):
            return true
        default:
            return NSDictionary(dictionary: ["v": actual]).isEqual(to: ["v": expected])
        }
    }

    /// md5 of every row of every table of the public schema.
    static func tableChecksums(_ harness: Harness) throws -> [String: String] {
        let connection = try Connection.connect(url: harness.databaseURL)
        var sums: [String: String] = [:]
        for row in try connection.query("select tablename::text from pg_tables where schemaname = 'public'") {
            let table = try row.decode(0, as: String.self)
            sums[table] = try connection.query(
                "select coalesce(md5(string_agg(t::text, ',' order by t::text)), '') from \(identifier: table) t")[0]
                .decode(0, as: String.self)
        }
        return sums
    }
}
