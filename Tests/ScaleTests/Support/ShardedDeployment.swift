import Foundation
import Postgres
import TestSupport

/// A directory and its shards, each a database of the test cluster, set up by the
/// `pushledger` commands an operator runs.
struct ShardedDeployment {
    let directoryURL: String
    /// Shard name → URL.
    let shards: [String: String]

    /// Creates and migrates the directory and the shards `names`, and adds the shards. The
    /// shards in `hostLists` are added by a Patroni-style URL: a host that refuses connections,
    /// then the real one, read-write required (libpq tries them in order).
    init(shards names: [String], hostLists: Set<String> = []) throws {
        directoryURL = try TestDatabase.empty(prefix: "dir")
        var shards: [String: String] = [:]
        for name in names { shards[name] = try TestDatabase.empty(prefix: "shard_\(name)") }
        self.shards = shards
        try run(["migrate"])
        for name in names {
            // A shard must be a migrated PushLedger database before it is added.
            let refused = try CommandRunner.run(["--directory-url", directoryURL, "shards", "add", name, shards[name]!])
            guard refused.status == 1, refused.stderr.contains("not a migrated") else {
                throw ShardTestError(description: "an unmigrated shard was not refused: \(refused.stderr)")
            }
            let migrated = try CommandRunner.run(["--database-url", shards[name]!, "migrate"])
            guard migrated.status == 0 else { throw ShardTestError(description: "migrate: \(migrated.stderr)") }
            try run(["shards", "add", name, hostLists.contains(name) ? Self.hostList(shards[name]!) : shards[name]!])
        }
    }

    /// Runs `pushledger arguments…` with the directory in the environment; throws unless it exits 0.
    @discardableResult
    func run(_ arguments: [String]) throws -> CommandRunner.Output {
        let output = try CommandRunner.run(arguments, environment: ["PUSHLEDGER_DIRECTORY_URL": directoryURL])
        guard output.status == 0 else {
            throw ShardTestError(
                description: "pushledger \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)")
        }
        return output
    }

    /// `url` (one host, with a query) as a list of two hosts, the first refusing connections
    /// (port 1 on loopback), read-write required.
    static func hostList(_ url: String) -> String {
        url.replacingOccurrences(of: "@", with: "@127.0.0.1:1,") + (url.contains("?") ? "&" : "?")
            + "target_session_attrs=read-write"
    }

    func directory() throws -> Connection { try Connection.connect(url: directoryURL) }
    func shard(_ name: String) throws -> Connection { try Connection.connect(url: shards[name]!) }
}

struct ShardTestError: Error, CustomStringConvertible {
    let description: String
}
