import Foundation
import Postgres

/// One shard: an ordinary PushLedger database holding every row of the apps placed on it.
public struct Shard: Sendable, Equatable, Hashable {
    public let name: String
    public let url: String

    public init(name: String, url: String) {
        self.name = name
        self.url = url
    }
}

/// The directory database of a sharded deployment (`sql/directory/`): the shard map, which
/// shard holds each app, moves in progress, and the keys. Writes stay local transactions on
/// the shard that owns the app; the directory is read once per key reload and map refresh.
public struct ShardDirectory: Sendable {
    /// A refusal with a message safe to show.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case badShardName(String)
        case unknownShard(String)
        case shardExists(String)
        case unplaced(app: String)
        case placedElsewhere(app: String, shard: String)
        case moveInProgress(app: String)
        case shardUnreachable(name: String, message: String)
        case shardNotMigrated(String)

        public var description: String {
            switch self {
            case .badShardName(let name):
                "shard name '\(name)' must be a lowercase letter, then letters, digits or _ (40 at most)"
            case .unknownShard(let name): "no shard named '\(name)' (see pushledger shards list)"
            case .shardExists(let name): "a shard named '\(name)' is already in the directory"
            case .unplaced(let app):
                "app '\(app)' is not placed on any shard (pushledger apps place \(app) --shard NAME)"
            case .placedElsewhere(let app, let shard):
                "app '\(app)' already lives on shard '\(shard)'; use pushledger apps move to move it"
            case .moveInProgress(let app):
                "app '\(app)' is being moved; finish it with pushledger apps move, or --rollback"
            case .shardUnreachable(let name, let message): "shard '\(name)' is unreachable: \(message)"
            case .shardNotMigrated(let name):
                "shard '\(name)' is not a migrated PushLedger database (run pushledger migrate)"
            }
        }
    }

    /// The advisory lock class of "an app's writes" on a shard (its second key is
    /// `hashtext(app_id)`): ingestors take it shared around a write, a move exclusive to pause it.
    public static let writeLockClass: Int32 = 72_450

    /// The folder of the directory's own SQL below `sql/`.
    public static let sqlFolder = "directory"

    public init() {}

    /// Every shard, by name.
    public func shards(on connection: Connection) throws -> [Shard] {
        try connection.query("select name, url from shards order by name").map { row in
            Shard(name: try row.decode("name"), url: try row.decode("url"))
        }
    }

    /// The shard named `name`.
    public func shard(named name: String, on connection: Connection) throws -> Shard {
        guard let shard = try shards(on: connection).first(where: { $0.name == name }) else {
            throw Failure.unknownShard(name)
        }
        return shard
    }

    /// Adds a shard after checking that `url` answers and holds a migrated PushLedger schema.
    public func addShard(name: String, url: String, on connection: Connection) throws {
        guard name.range(of: "^[a-z][a-z0-9_]{0,39}$", options: .regularExpression) != nil else {
            throw Failure.badShardName(name)
        }
        if try shards(on: connection).contains(where: { $0.name == name }) { throw Failure.shardExists(name) }
        let shard: Connection
        do {
            shard = try Connection.connect(url: url)
        } catch {
            throw Failure.shardUnreachable(name: name, message: error.description)
        }
        let migrated = try shard.query("select to_regclass('public.shard_departures') is not null as migrated")[0]
            .decode("migrated", as: Bool.self)
        guard migrated else { throw Failure.shardNotMigrated(name) }
        try connection.execute("insert into shards (name, url) values (\(name), \(url))")
    }

    /// App → shard name, for every placed app.
    public func placements(on connection: Connection) throws -> [String: String] {
        var out: [String: String] = [:]
        for row in try connection.query("select app_id, shard from app_placements") {
            out[try row.decode("app_id")] = try row.decode("shard")
        }
        return out
    }

    /// Apps being moved, with the state of their move (`copying`, `paused`, `flipped`).
    public func moves(on connection: Connection) throws -> [String: String] {
        var out: [String: String] = [:]
        for row in try connection.query("select app_id, state from app_moves") {
            out[try row.decode("app_id")] = try row.decode("state")
        }
        return out
    }

    /// Places `app` on `shard`; placing it again on the same shard is a no-op, on another one is
    /// refused (a move copies the rows: `apps move`).
    public func place(app: String, shard: String, on connection: Connection) throws {
        _ = try self.shard(named: shard, on: connection)
        if let current = try placements(on: connection)[app] {
            guard current == shard else { throw Failure.placedElsewhere(app: app, shard: current) }
            return
        }
        try connection.execute(
            "insert into app_placements (app_id, shard) values (\(app), \(shard)) on conflict (app_id) do nothing")
    }

    /// The shard holding `app`.
    public func shard(of app: String, on connection: Connection) throws -> Shard {
        guard let name = try placements(on: connection)[app] else { throw Failure.unplaced(app: app) }
        return try shard(named: name, on: connection)
    }

    /// The shards a command works on: `app`'s alone, or every shard.
    public func targets(app: String?, on connection: Connection) throws -> [Shard] {
        if let app { return [try shard(of: app, on: connection)] }
        return try shards(on: connection)
    }
}

/// `pushledger migrate` of a sharded deployment: the directory from `sql/directory/`, then
/// every shard from `sql/`, with the directory's settings copied to each shard.
public struct FleetMigration: Sendable {
    public let directorySQL: Migrator
    public let shardSQL: Migrator

    /// `sqlDirectory` is the `sql/` folder.
    public init(sqlDirectory: URL) throws(Migrator.Failure) {
        shardSQL = try Migrator(directory: sqlDirectory)
        directorySQL = try Migrator(directory: sqlDirectory.appendingPathComponent(ShardDirectory.sqlFolder))
    }

    /// Migrates the directory, then each shard in name order; `progress` gets (database, file).
    /// Returns what ran, by database ("directory" or the shard's name).
    @discardableResult
    public func migrate(
        directory: Connection, progress: (String, String) -> Void = { _, _ in }
    ) throws -> [(String, Migrator.Outcome)] {
        var outcomes = [("directory", try directorySQL.migrate(directory) { progress("directory", $0) })]
        let granularity: String = try directory.query("select partition_granularity from pushledger_settings")[0]
            .decode(0)
        for shard in try ShardDirectory().shards(on: directory) {
            let connection: Connection
            do {
                connection = try Connection.connect(url: shard.url)
            } catch {
                throw ShardDirectory.Failure.shardUnreachable(name: shard.name, message: error.description)
            }
            outcomes.append((shard.name, try shardSQL.migrate(connection) { progress(shard.name, $0) }))
            try connection.execute("update pushledger_settings set partition_granularity = \(granularity)")
        }
        return outcomes
    }
}
