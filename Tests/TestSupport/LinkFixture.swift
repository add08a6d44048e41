import Foundation

/// The HTTPS fixture for association files: `scripts/link-fixture.sh` (nginx with its own CA)
/// serving a folder of sites, stopped by `stop()` or when the value goes away.
public final class LinkFixture: @unchecked Sendable {
    public let directory: URL
    public let port: Int
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }
    /// The `--connect-to` entry sending every host to the fixture.
    public var connectTo: String { "::127.0.0.1:\(port)" }

    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
    static var script: String { repository.appendingPathComponent("scripts/link-fixture.sh").path }

    /// Starts nginx on a free port of 127.0.0.1 serving `sites` (one folder per host name).
    public init(sites: URL) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushledger-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (status, out, err) = try Self.run(["start", directory.path, sites.path])
        guard status == 0, let port = Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw FixtureError(message: "link fixture did not start (\(status)): \(err)")
        }
        self.port = port
    }

    public func stop() {
        _ = try? Self.run(["stop", directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    static func run(_ arguments: [String]) throws -> (Int32, String, String) {
        let output = try CommandRunner.run(
            arguments, environment: ["HOME": NSTemporaryDirectory()], program: URL(fileURLWithPath: script))
        return (output.status, output.stdout, output.stderr)
    }

    struct FixtureError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
