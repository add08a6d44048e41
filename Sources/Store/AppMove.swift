import Foundation
import Postgres
import PushLedgerSupport

/// Moves one app from its shard to another (`pushledger apps move`) while it keeps posting:
///
/// 1. **copying** — a publication on the source, filtered to the app's rows (every table with
///    an `app_id`: events, de-duplication ids, rollups, feed positions, failed events), and a
///    subscription on the target copy what is there and follow what arrives;
/// 2. **paused** — an exclusive advisory lock on the source pauses the app's writes (ingestors
///    answer 503 with Retry-After and wait for nothing), the subscription catches up to the
///    source's WAL position, and every table's row count is compared;
/// 3. **flipped** — the source records the departure (a stale ingestor is refused there), the
///    directory names the target, the lock goes; then the subscription and publication are
///    dropped, the target's sequences raised to the source's, and the source's rows deleted.
///
/// Each step is recorded in the directory's `app_moves`, so a move cut short is visible:
/// running it again resumes it, `rollback` undoes a move not yet flipped. Never half done.
public struct AppMove: Sendable {
    public let app: String
    public let directoryURL: String
    /// Seconds the paused app may take to catch up and verify before the move gives up
    /// (unpausing, still copying: running it again tries again).
    public var catchUpLimit: TimeInterval = 30
    /// Where progress lines go.
    public var progress: @Sendable (String) -> Void = { _ in }

    /// A refusal or an interrupted step, with a message safe to show.
    public enum Failure: Error, CustomStringConvertible {
        case sameShard(String)
        case otherMoveInProgress(to: String)
        case targetHoldsRows(shard: String, rows: Int)
        case catchUpTimeout(seconds: Int)
        case countsDiffer(table: String, source: Int, target: Int)
        case nothingToRollBack
        case alreadyFlipped(to: String)
        /// The login of a shard's URL is no superuser: PostgreSQL 15 lets only a superuser
        /// create a subscription (the new shard) and turn triggers off to delete the app's rows
        /// (either shard, `session_replication_role`).
        case notSuperuser(shard: String, role: String)

        public var description: String {
            switch self {
            case .sameShard(let shard): "the app already lives on shard '\(shard)'"
            case .otherMoveInProgress(let to):
                "a move of this app to shard '\(to)' is in progress: run it again to resume, or --rollback"
            case .targetHoldsRows(let shard, let rows):
                "shard '\(shard)' already holds \(rows) rows of the app; nothing was changed"
            case .catchUpTimeout(let seconds):
                """
                the copy did not catch up within \(seconds) s; the app posts again on its old shard, the copy \
                goes on: run the move again
                """
            case .countsDiffer(let table, let source, let target):
                """
                \(table): \(source) rows on the source, \(target) on the target after catching up; the app posts \
                again on its old shard: run the move again
                """
            case .nothingToRollBack: "no move of this app is in progress"
            case .alreadyFlipped(let to):
                """
                the move has flipped: the app lives on shard '\(to)' now; run the move again to finish it (or \
                move the app back)
                """
            case .notSuperuser(let shard, let role):
                """
                moving an app needs a superuser login on both shards (PostgreSQL 15 lets only a superuser create \
                a subscription); role '\(role)' of shard '\(shard)' is not one: add the shard with a superuser's \
                URL; nothing was changed
                """
            }
        }
    }

    public init(app: String, directoryURL: String) {
        self.app = app
        self.directoryURL = directoryURL
    }

    /// Publication, slot and subscription name of this app's move: the app id's hash, since an
    /// app id may be longer than an identifier or hold any character.
    var replicationName: String { "pushledger_move_" + String(SHA256.hex(SHA256.hash(app)).prefix(16)) }

    /// Starts or resumes the move to `target` and finishes it. Returns what it did.
    @discardableResult
    public func run(to target: String) throws -> MoveReport {
        let directory = try Connection.connect(url: directoryURL)
        let map = ShardDirectory()
        // Both logins checked before anything is recorded: the source of a move in progress, else the app's shard.
        let recorded = try directory.query("select from_shard from app_moves where app_id = \(app)").first.map {
            try $0.decode("from_shard", as: String.self)
        }
        for name in [try recorded ?? map.shard(of: app, on: directory).name, target] {
            try Self.requireSuperuser(try map.shard(named: name, on: directory))
        }
        let (from, state) = try begin(to: target, directory: directory)
        let source = try map.shard(named: from, on: directory),
            destination = try map.shard(named: target, on: directory)
        var report = MoveReport(app: app, from: from, to: target)
        let clock = ContinuousClock(), started = clock.now
        if state != "flipped" {
            let sourceConnection = try Connection.connect(url: source.url)
            let targetConnection = try Connection.connect(url: destination.url)
            try startCopy(source: sourceConnection, sourceURL: source.url, target: targetConnection)
            try waitForInitialCopy(target: targetConnection)
            report.copySeconds = seconds(clock.now - started)
            let pauseStarted = clock.now
            try setState("paused", directory)
            progress("pausing the app's writes on \(from)")
            try sourceConnection.execute("select pg_advisory_lock(\(ShardDirectory.writeLockClass), hashtext(\(app)))")
            do {
                report.rows = try verifyCaughtUp(source: sourceConnection, target: targetConnection)
                // The fence first, then the map: a write routed by the old map after the lock goes is refused.
                try sourceConnection.execute(
                    """
                    insert into shard_departures (app_id, moved_to) values (\(app), \(target)) on conflict \
                    (app_id) do update set moved_to = excluded.moved_to, moved_at = now()
                    """
                )
                try targetConnection.execute("delete from shard_departures where app_id = \(app)")
                try directory.transaction { directory in
                    try directory.execute(
                        "update app_placements set shard = \(target), placed_at = now() where app_id = \(app)")
                    try directory.execute(
                        "update app_moves set state = 'flipped', updated_at = now() where app_id = \(app)")
                }
            } catch {
                _ = try? sourceConnection.execute(
                    "select pg_advisory_unlock(\(ShardDirectory.writeLockClass), hashtext(\(app)))")
                _ = try? setState("copying", directory)
                throw error
            }
            try sourceConnection.execute(
                "select pg_advisory_unlock(\(ShardDirectory.writeLockClass), hashtext(\(app)))")
            report.pauseSeconds = seconds(clock.now - pauseStarted)
            progress("flipped: \(app) lives on \(target)")
        }
        let sourceConnection = try Connection.connect(url: source.url)
        let targetConnection = try Connection.connect(url: destination.url)
        try stopCopy(source: sourceConnection, target: targetConnection)
        try raiseSequences(source: sourceConnection, target: targetConnection)
        report.deletedFromSource = try deleteRows(on: sourceConnection)
        try directory.execute("delete from app_moves where app_id = \(app)")
        report.totalSeconds = seconds(clock.now - started)
        progress("done: \(report.deletedFromSource) rows removed from \(from)")
        return report
    }

    /// Undoes a move not yet flipped: the subscription, slot and publication go, and the rows
    /// copied to the target are deleted. The app never stopped living on its old shard.
    public func rollback() throws {
        let directory = try Connection.connect(url: directoryURL)
        let rows = try directory.query("select from_shard, to_shard, state from app_moves where app_id = \(app)")
        guard let row = rows.first else { throw Failure.nothingToRollBack }
        let target: String = try row.decode("to_shard")
        guard try row.decode("state", as: String.self) != "flipped" else { throw Failure.alreadyFlipped(to: target) }
        let map = ShardDirectory()
        let source = try map.shard(named: try row.decode("from_shard"), on: directory)
        let destination = try map.shard(named: target, on: directory)
        for shard in [source, destination] { try Self.requireSuperuser(shard) }
        let sourceConnection = try Connection.connect(url: source.url)
        let targetConnection = try Connection.connect(url: destination.url)
        try stopCopy(source: sourceConnection, target: targetConnection)
        let removed = try deleteRows(on: targetConnection)
        try directory.execute("delete from app_moves where app_id = \(app)")
        progress("rolled back: \(removed) copied rows removed from \(target)")
    }

    /// Throws ``Failure/notSuperuser(shard:role:)`` unless `shard`'s login is a superuser.
    static func requireSuperuser(_ shard: Shard) throws {
        let row = try Connection.connect(url: shard.url).query(
            "select current_user::text as role, rolsuper from pg_roles where rolname = current_user")[0]
        guard try row.decode("rolsuper", as: Bool.self) else {
            throw Failure.notSuperuser(shard: shard.name, role: try row.decode("role"))
        }
    }

    /// Records the move (or finds the one to resume): the source shard and the state.
    private func begin(to target: String, directory: Connection) throws -> (from: String, state: String) {
        let map = ShardDirectory()
        _ = try map.shard(named: target, on: directory)
        if let row = try directory.query("select from_shard, to_shard, state from app_moves where app_id = \(app)")
            .first
        {
            let to: String = try row.decode("to_shard")
            guard to == target else { throw Failure.otherMoveInProgress(to: to) }
            progress("resuming the move of \(app) to \(target)")
            return (try row.decode("from_shard"), try row.decode("state"))
        }
        let from = try map.shard(of: app, on: directory).name
        guard from != target else { throw Failure.sameShard(from) }
        let rows = try AppTables.rows(
            of: app, on: Connection.connect(url: try map.shard(named: target, on: directory).url))
        guard rows == 0 else { throw Failure.targetHoldsRows(shard: target, rows: rows) }
        try directory.execute(
            "insert into app_moves (app_id, from_shard, to_shard, state) values (\(app), \(from), \(target), 'copying')"
        )
        return (from, "copying")
    }

    private func setState(_ state: String, _ directory: Connection) throws {
        try directory.execute("update app_moves set state = \(state), updated_at = now() where app_id = \(app)")
    }

    /// Publication and slot on the source, subscription on the target, each unless it exists.
    /// The slot is made first and the subscription told to use it: a subscription to a
    /// database of the same cluster cannot create its slot itself (it would wait for itself).
    private func startCopy(source: Connection, sourceURL: String, target: Connection) throws {
        let name = replicationName
        let published = try source.query("select 1 from pg_publication where pubname = \(name)")
        if published.isEmpty {
            let tables = try AppTables.names(on: source).map { "\($0) where (app_id = \(Self.literal(app)))" }
            try source.executeScript(
                """
                create publication \(name) for table \(tables.joined(separator: ", ")) with (publish = 'insert, \
                update, delete', publish_via_partition_root = true)
                """
            )
        }
        if try source.query("select 1 from pg_replication_slots where slot_name = \(name)").isEmpty {
            _ = try source.query("select pg_create_logical_replication_slot(\(name), 'pgoutput')")
        }
        if try target.query("select 1 from pg_subscription where subname = \(name)").isEmpty {
            progress("copying \(app)")
            try target.executeScript(
                """
                create subscription \(name) connection \(Self.literal(sourceURL)) publication \(name) with \
                (create_slot = false, slot_name = \(Self.literal(name)), copy_data = true)
                """
            )
        }
    }

    /// Waits until every table of the subscription has its initial copy ('r': ready).
    private func waitForInitialCopy(target: Connection) throws {
        let name = replicationName
        while true {
            let pending: Int = try target.query(
                """
                select count(*) from pg_subscription_rel r join pg_subscription s on s.oid = r.srsubid
                 where s.subname = \(name) and r.srsubstate <> 'r'
                """)[0].decode(0)
            if pending == 0 { return }
            usleep(50_000)
        }
    }

    /// Waits (paused) until the target confirmed the source's WAL up to now.
    private func catchUp(source: Connection, target: Connection) throws {
        let position: String = try source.query("select pg_current_wal_lsn()::text")[0].decode(0)
        let deadline = Date() + catchUpLimit
        while Date() < deadline {
            let done: Bool = try source.query(
                """
                select coalesce(confirmed_flush_lsn >= \(position)::pg_lsn, false) from pg_replication_slots \
                where slot_name = \(replicationName)
                """
            )[0].decode(0)
            if done { return }
            usleep(10_000)
        }
        throw Failure.catchUpTimeout(seconds: Int(catchUpLimit))
    }

    /// Catches up, then compares the counts; a difference is looked at again (after catching up
    /// once more) until the limit: a table's changes can still be in the subscriber's apply when
    /// its position is confirmed. A difference that stays is the move's failure.
    private func verifyCaughtUp(source: Connection, target: Connection) throws -> Int {
        let deadline = Date() + catchUpLimit
        while true {
            try catchUp(source: source, target: target)
            do {
                return try verify(source: source, target: target)
            } catch Failure.countsDiffer(let table, let here, let there) {
                guard Date() < deadline else { throw Failure.countsDiffer(table: table, source: here, target: there) }
                usleep(200_000)
            }
        }
    }

    /// Every table's row count of the app, equal on both sides; returns the total.
    private func verify(source: Connection, target: Connection) throws -> Int {
        var total = 0
        for table in try AppTables.names(on: source) {
            let count: SQL = "select count(*) from \(identifier: table) where app_id = \(app)"
            let (here, there) = (
                try source.query(count)[0].decode(0, as: Int.self), try target.query(count)[0].decode(0, as: Int.self)
            )
            guard here == there else { throw Failure.countsDiffer(table: table, source: here, target: there) }
            total += here
        }
        return total
    }

    /// Drops the subscription (its slot first detached), the slot and the publication, each if present.
    private func stopCopy(source: Connection, target: Connection) throws {
        let name = replicationName
        if try !target.query("select 1 from pg_subscription where subname = \(name)").isEmpty {
            try target.executeScript("alter subscription \(name) disable")
            try target.executeScript("alter subscription \(name) set (slot_name = none)")
            try target.executeScript("drop subscription \(name)")
        }
        // The slot may still be held a moment by the walsender the subscription stopped.
        for _ in 0..<200 {
            let rows = try source.query("select active from pg_replication_slots where slot_name = \(name)")
            guard let row = rows.first else { break }
            if try !row.decode("active", as: Bool.self) {
                _ = try source.query("select pg_drop_replication_slot(\(name))")
                break
            }
            usleep(50_000)
        }
        try source.executeScript("drop publication if exists \(name)")
    }

    /// Sequences of the target at least the source's, so ids copied over are never handed out again.
    private func raiseSequences(source: Connection, target: Connection) throws {
        let rows = try source.query(
            """
            select schemaname || '.' || sequencename as name, last_value from pg_sequences where schemaname = \
            'public' and last_value is not null
            """
        )
        for row in rows {
            let name: String = try row.decode("name"), value: Int = try row.decode("last_value")
            _ = try target.query(
                """
                select setval(\(name)::regclass, greatest(\(value), (select coalesce(last_value, 1) from \
                pg_sequences where schemaname || '.' || sequencename = \(name))))
                """
            )
        }
    }

    /// Deletes every row of the app in one transaction; returns how many. Triggers are off
    /// (`session_replication_role = replica`, as for the subscription that copied them): they
    /// would record derived rows (rollup work) of the rows going, and every table of the app is
    /// emptied anyway.
    private func deleteRows(on connection: Connection) throws -> Int {
        try connection.transaction { connection in
            try connection.executeScript("set local session_replication_role = replica")
            var total = 0
            for table in try AppTables.names(on: connection) {
                total += try connection.execute("delete from \(identifier: table) where app_id = \(app)")
            }
            return total
        }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `text` as a quoted SQL literal, for DDL that takes no parameters.
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}

/// What a move did and how long it took.
public struct MoveReport: Sendable, Equatable {
    public let app: String
    public let from: String
    public let to: String
    public var rows = 0
    public var deletedFromSource = 0
    public var copySeconds = 0.0
    /// How long the app's writes were refused.
    public var pauseSeconds = 0.0
    public var totalSeconds = 0.0
}

/// The tables of a shard that hold an app's rows: every ordinary or partitioned (parent) table
/// of `public` with an `app_id` column, less the departures (a shard's own record) and the
/// unlogged tables (a rollup pass's rows in flight, which logical replication cannot publish).
public enum AppTables {
    public static func names(on connection: Connection) throws -> [String] {
        try connection.query(
            """
            select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
             where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition and c.relname <> \
            'shard_departures' and c.relpersistence = 'p'
               and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'app_id' and not \
            a.attisdropped)
             order by c.relname
            """
        ).map { try $0.decode(0) }
    }

    /// Rows of `app` in all of them.
    public static func rows(of app: String, on connection: Connection) throws -> Int {
        var total = 0
        for table in try names(on: connection) {
            total += try connection.query("select count(*) from \(identifier: table) where app_id = \(app)")[0].decode(
                0, as: Int.self)
        }
        return total
    }
}
