import Foundation
import Postgres
import TestSupport
import Testing

/// The shell snippets of docs/integrations/senders.md, run as they stand against a real server.
@Suite(.serialized) struct SenderGuideTests {
    let harness: Harness
    let directory: URL

    init() throws {
        harness = try Harness()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("guide-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The code block opened by "```sh tested=NAME".
    static func snippet(_ name: String) throws -> String {
        let guide = try String(
            contentsOf: TestDatabase.repositoryRoot.appendingPathComponent("docs/integrations/senders.md"),
            encoding: .utf8)
        let opening = "```sh tested=\(name)\n"
        let start = try #require(guide.range(of: opening), "no snippet \(name)")
        let end = try #require(guide.range(of: "\n```", range: start.upperBound..<guide.endIndex))
        return String(guide[start.upperBound..<end.lowerBound])
    }

    func run(_ name: String, _ environment: [String: String] = [:]) throws -> CommandRunner.Output {
        let script = "set -euo pipefail\ncd '\(directory.path)'\n" + (try Self.snippet(name))
        return try CommandRunner.run(
            ["-c", script],
            environment: ["PUSHLEDGER_URL": "http://127.0.0.1:\(harness.port)", "PUSHLEDGER_SENDS_KEY": TestKeys.sends]
                .merging(environment) { $1 },
            program: URL(fileURLWithPath: "/bin/bash"))
    }

    @Test func theCurlSnippetForwardsTheBodyAndTheFeedSnippetPollsIt() throws {
        let token = String(repeating: "ab", count: 32)
        try Data(#"{"reason":"Unregistered","timestamp":1764500000000}"#.utf8).write(
            to: directory.appendingPathComponent("answer.json"))
        let report = try run(
            "report",
            [
                "TOKEN": token, "NOTIFICATION_ID": UUID().uuidString.lowercased(), "APP_ID": Fixtures.app,
                "STATUS": "410",
            ])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains(#""accepted":1"#), "\(report.stdout)")
        let row = try Connection.connect(url: harness.databaseURL).query(
            "select reason, extract(epoch from unregistered_at)::int8 as at, response_body from sends")[0]
        #expect(try row.decode("reason", as: String?.self) == "Unregistered")
        #expect(try row.decode("at", as: Int?.self) == 1_764_500_000)
        #expect(
            try row.decode("response_body", as: String?.self) == #"{"reason":"Unregistered","timestamp":1764500000000}"#
        )

        try TestDatabase.waitForFeedHorizon(on: Connection.connect(url: harness.databaseURL))
        let first = try run("feed")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "delete apns \(token)\n")
        let again = try run("feed")
        #expect(again.status == 0 && again.stdout.isEmpty, "the saved cursor resumes after the token: \(again.stdout)")
    }
}
