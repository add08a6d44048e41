import Foundation

/// A Postgres cluster of its own (scripts/db.sh), so a test can really stop Postgres — the
/// shared test cluster serves every other suite and must stay up.
public final class LocalCluster: Sendable {
    public let name: String
    public let url: String

    /// Starts a fresh cluster `name` (a leftover of an earlier run is destroyed first).
    public init(name: String) throws {
        self.name = name
        try Self.script("destroy", name)
        url = try Self.script("start", name)
    }

    /// Removes the cluster and its files; call in a `defer`.
    public func destroy() { _ = try? Self.script("destroy", name) }

    /// `pg_ctl stop -m fast`: connections are terminated, the data stays.
    public func stop() throws { try Self.script("stop", name) }

    /// Starts it again on the same port.
    public func resume() throws { try Self.script("resume", name) }

    @discardableResult
    private static func script(_ command: String, _ name: String) throws -> String {
        let script = TestDatabase.repositoryRoot.appendingPathComponent("scripts/db.sh")
        let output = try CommandRunner.run([command, name], program: script)
        guard output.status == 0 else { throw RawHTTPError(description: "db.sh \(command) \(name): \(output.stderr)") }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
