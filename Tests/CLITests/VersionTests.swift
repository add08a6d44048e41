import Foundation
import TestSupport
import Testing

/// `pushledger --version` names the release (VERSION) and the commit it was built from, stamped
/// by the BuildInfo plugin at every build.
@Suite struct VersionTests {
    static func git(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", TestDatabase.repositoryRoot.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }

    @Test func versionNamesTheReleaseAndTheCommit() throws {
        let release = try String(
            contentsOf: TestDatabase.repositoryRoot.appendingPathComponent("VERSION"), encoding: .utf8
        )
        .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!release.isEmpty)
        let result = try CommandRunner.run(["--version"])
        #expect(result.status == 0)
        let line = result.stdout.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("pushledger \(release) (commit "), "\(line)")
        let head = try Self.git(["rev-parse", "--short=12", "HEAD"])
        // The binary is built from this checkout (possibly with changes: "-dirty").
        let expected = head.status == 0 ? head.output : "unknown"
        #expect(line.hasSuffix("(commit \(expected))") || line.hasSuffix("(commit \(expected)-dirty)"), "\(line)")
    }
}
