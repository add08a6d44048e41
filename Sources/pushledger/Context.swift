import CommandLineParsing
import Foundation
import Postgres
import PushLedgerSupport
import Store
import Synchronization
import TableRendering

/// A failure a command reports to its user: a safe one-line message, the exit status, and
/// detail for the log.
struct CommandFailure: ExitCoded, CustomStringConvertible {
    var message: String
    var exitCode: ExitCode = .failure
    var detail: String?
    var description: String { message }
}

extension CommandFailure {
    /// The database went away (unreachable, connection lost, the primary moved; exit status
    /// ``ExitCode/unavailable``, so a scheduler runs it again later): one line saying what is
    /// known of the interrupted work. Every command's changes are transactions, so a break before
    /// COMMIT left nothing applied; a break during COMMIT leaves the last transaction applied or
    /// not, and running the command again is how to find out (rollup, retention, migrate and
    /// alert check are idempotent).
    init(connection error: PostgresError) {
        let message: String
        switch error.code {
        case .connectionFailed: message = error.description
        case .commitUnknown:
            message = "lost the database connection during COMMIT (\(error.message)); run the command again to finish"
        default:
            message =
                "lost the database connection (\(error.description)); the interrupted transaction was not applied; "
                + "run the command again"
        }
        self.init(message: message, exitCode: ExitCode(reporting: error), detail: error.debugDescription)
    }

    /// Any error a command throws, as its user sees it: the one mapping of errors to messages, for
    /// the executable and for each shard of ``CommandContext/eachShard``; the status is the one the
    /// error names (``ExitCode/init(reporting:)``).
    init(reporting error: any Error) {
        switch error {
        case let failure as CommandFailure: self = failure
        case let error as PostgresError where error.isConnectionProblem: self.init(connection: error)
        case let error as PostgresError:
            self.init(message: error.description, exitCode: ExitCode(reporting: error), detail: error.debugDescription)
        default: self.init(message: "\(error)", exitCode: ExitCode(reporting: error))
        }
    }
}

/// What every command gets: the global options, the environment, a logger, and the database.
struct CommandContext {
    let global: GlobalOptions
    let environment: [String: String]
    let logger: Logger
    /// With `--directory-url`: the app whose shard the command works on (``AppRouted``).
    var app: String? = nil
    /// With `--directory-url`: the command works on the directory itself (`keys`).
    var onDirectory = false
    /// The shard this context works on, for a command run on every shard (`eachShard`).
    var shard: Shard? = nil
    /// Where `print` writes while the shards run side by side; nil: stdout.
    var output: ShardOutput? = nil

    /// `--database-url`, else `DATABASE_URL`, else "" (libpq reads the PG* variables); the
    /// shard's URL inside `eachShard`.
    var databaseURL: String { shard?.url ?? global.databaseURL ?? "" }

    /// `--read-database-url`, else `PUSHLEDGER_READ_DATABASE_URL`; nil: reads go to the primary.
    var readDatabaseURL: String? { shard == nil && directoryURL == nil ? global.readDatabaseURL : nil }

    /// `--directory-url`, else `PUSHLEDGER_DIRECTORY_URL`; nil: one database, no shards. Nil
    /// inside `eachShard`.
    var directoryURL: String? { shard == nil ? global.directoryURL : nil }

    /// The database: with `--directory-url`, the shard of `--app` (the directory itself for `keys`).
    func connect() throws -> Connection { try connect(url: routedURL()) }

    /// A connection for a command that only reads: the standby when one is configured.
    func connectForReading() throws -> Connection { try connect(url: readDatabaseURL ?? routedURL()) }

    /// The directory database; a usage error without `--directory-url`.
    func connectDirectory() throws -> Connection {
        guard let url = directoryURL else {
            throw OptionError("this command needs --directory-url (or PUSHLEDGER_DIRECTORY_URL)")
        }
        return try connect(url: url)
    }

    /// Where this command's rows live: `--database-url` without a directory; with one, the
    /// directory for `keys` (looked up before the app is known) and the shard of `--app` for
    /// the rest.
    func routedURL() throws -> String {
        guard let directory = directoryURL else { return databaseURL }
        if onDirectory { return directory }
        guard let app else {
            throw OptionError("with --directory-url this command works on one app's shard: name --app")
        }
        return try ShardsCommand.refusals { try ShardDirectory().shard(of: app, on: connect(url: directory)).url }
    }

    /// Runs `body` for every shard (only `--app`'s with that option), side by side, each with
    /// a context of its own whose output is printed after all finished, under the shard's
    /// name; without a directory `body` runs once on the one database. The exit status is the
    /// worst; a shard's failure is reported with its name and the others still run.
    func eachShard(_ body: @escaping @Sendable (CommandContext) throws -> Int32) throws -> Int32 {
        guard let directory = directoryURL else { return try body(self) }
        let shards = try ShardsCommand.refusals { try ShardDirectory().targets(app: app, on: connect(url: directory)) }
        let results = Mutex<[String: (status: Int32, output: ShardOutput)]>([:])
        DispatchQueue.concurrentPerform(iterations: shards.count) { index in
            var context = self
            context.shard = shards[index]
            context.output = ShardOutput()
            let status: Int32
            do {
                status = try body(context)
            } catch {
                let failure = CommandFailure(reporting: error)
                context.output?.errors.withLock { $0.append(failure.message) }
                status = failure.exitCode.rawValue
            }
            results.withLock { $0[shards[index].name] = (status, context.output!) }
        }
        let done = results.withLock { $0 }
        var worst: Int32 = 0
        for shard in shards {
            guard let (status, output) = done[shard.name] else { continue }
            let text = output.text.withLock { $0 }
            if !text.isEmpty { print(shards.count > 1 ? "== shard \(shard.name)\n" + text : text) }
            for message in output.errors.withLock({ $0 }) {
                FileHandle.standardError.write(Data("pushledger: shard \(shard.name): \(message)\n".utf8))
            }
            worst = max(worst, status)
        }
        return worst
    }

    func connect(url: String) throws -> Connection {
        do {
            return try Connection.connect(url: url)
        } catch {
            throw CommandFailure(connection: error)
        }
    }

    /// The `sql/` folder (migrations and definition files): `--sql-dir`/`PUSHLEDGER_SQL_DIR`,
    /// else the nearest `sql/` holding `definitions.list` above the executable, found by
    /// `/proc/self/exe` (a binary run from `PATH` has no folder in its `argv[0]`). Never the
    /// working directory: a `sql/` lying there must not become the schema that `migrate` applies.
    func sqlDirectory() throws -> URL {
        if let explicit = global.sqlDir { return URL(fileURLWithPath: explicit) }
        let path =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent()
            .standardizedFileURL
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("sql")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("definitions.list").path) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        throw CommandFailure(
            message:
                "cannot find the sql/ folder next to the binary (\(path)); set PUSHLEDGER_SQL_DIR or pass --sql-dir")
    }

    /// Writes `text` to stdout as is (to the shard's output inside `eachShard`).
    func print(_ text: String) {
        if let output {
            output.text.withLock { $0 += text.hasSuffix("\n") ? text : text + "\n" }
            return
        }
        FileHandle.standardOutput.write(Data((text.utf8.last == UInt8(ascii: "\n") ? text : text + "\n").utf8))
    }

    /// Prints rows through the one table renderer in `format`; the terminal forms show the `key`
    /// columns (nil: all) fitted to 120 columns, or what `columns` (``ColumnOptions``) asks for.
    func printTable(
        format: TableFormat, headers: [String], rows: [[Cell]], key: [String]? = nil, columns: ColumnChoice = .key
    ) throws {
        let table = ReportTable(title: "", columns: headers, rows: rows, key: key)
        do {
            print(table.rendered(format, columns: try columns.checked(against: [table.table])))
        } catch {
            throw OptionError(error.reason)
        }
    }
}

/// What one shard's run of a command printed and the errors it met.
final class ShardOutput: Sendable {
    let text = Mutex("")
    let errors = Mutex<[String]>([])
}

/// A command that works on one app's rows: with `--directory-url` it runs on that app's shard.
protocol AppRouted {
    /// The app named by `--app`; nil: every shard (commands that take it optionally).
    var routingApp: String? { get }
}

/// A command that runs: a ``ParsableCommand`` whose declared options are filled before `run`.
/// Commands that only group subcommands (`report`, `keys`) are plain ``ParsableCommand``s.
protocol Command: ParsableCommand {
    /// Does the work; returns the exit status (an ``ExitCode``'s). A thrown error is reported by
    /// ``CommandFailure/init(reporting:)`` with the status it names: ``OptionError`` bad usage, a lost
    /// database unavailable, a ``CommandFailure`` its own, anything else failure.
    func run(_ context: CommandContext) throws -> Int32
}
