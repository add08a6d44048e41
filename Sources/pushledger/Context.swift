import Foundation
import Postgres
import PushLedgerSupport
import PushLedgerCLI

/// A failure a command reports to its user: a safe one-line message, the exit status, and
/// detail for the log.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32 = 1
    var detail: String?
    var description: String { message }
}

extension CommandFailure {
    /// Exit status of a command whose database went away under it (unreachable, connection
    /// lost, the primary moved): a scheduler runs it again later.
    static let connectionExitCode: Int32 = 2

    /// The database went away: one line saying what is known of the interrupted work. Every
    /// command's changes are transactions, so a break before COMMIT left nothing applied; a
    /// break during COMMIT leaves the last transaction applied or not, and running the
    /// command again is how to find out (rollup, retention, migrate and alert check are idempotent).
    init(connection error: PostgresError) {
        let message: String
        switch error.code {
        case .connectionFailed: message = error.description
        case .commitUnknown:
            message = "lost the database connection during COMMIT (\(error.message)); run the command again to finish"
        default:
            message = "lost the database connection (\(error.description)); the interrupted transaction was not applied; run the command again"
        }
        self.init(message: message, exitCode: Self.connectionExitCode, detail: error.debugDescription)
    }
}

/// What every command gets: its parsed arguments, the environment, a logger, and the database.
struct CommandContext {
    let command: ParsedCommand
    let environment: [String: String]
    let logger: Logger

    /// `--database-url`, else `DATABASE_URL`, else "" (libpq reads the PG* variables).
    var databaseURL: String { command.string("database-url") ?? "" }

    /// `--read-database-url`, else `PUSHLEDGER_READ_DATABASE_URL`; nil: reads go to the primary.
    var readDatabaseURL: String? { command.string("read-database-url") }

    func connect() throws -> Connection { try connect(url: databaseURL) }

    /// `--directory-url`, else `PUSHLEDGER_DIRECTORY_URL`; nil: one database, no shards.
    var directoryURL: String? { command.string("directory-url") }

    /// The directory database; a usage error without `--directory-url`.
    func connectDirectory() throws -> Connection {
        guard let url = directoryURL else { throw OptionError("this command needs --directory-url (or PUSHLEDGER_DIRECTORY_URL)") }
        return try connect(url: url)
    }

    /// A connection for a command that only reads: the standby when one is configured.
    func connectForReading() throws -> Connection { try connect(url: readDatabaseURL ?? databaseURL) }

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
        if let explicit = command.string("sql-dir") { return URL(fileURLWithPath: explicit) }
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent().standardizedFileURL
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("sql")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("definitions.list").path) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        throw CommandFailure(message: "cannot find the sql/ folder next to the binary (\(path)); set PUSHLEDGER_SQL_DIR or pass --sql-dir")
    }

    /// Writes `text` to stdout as is.
    func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text.utf8.last == UInt8(ascii: "\n") ? text : text + "\n").utf8))
    }
}

/// The shape every command implementation has.
protocol Command {
    static var spec: CommandSpec { get }
    static func run(_ context: CommandContext) throws -> Int32
}

extension CommandContext {
    /// Prints rows through the one table renderer in `format` (table, text, csv, markdown or
    /// json); the terminal forms show the `key` columns (nil: all) fitted to 120 columns, or
    /// what `--columns`/`--wide` ask for when the command declares ``ColumnChoice/options``.
    func printTable(format: String, headers: [String], rows: [[Cell]], key: [String]? = nil) throws {
        let table = ReportTable(title: "", columns: headers, rows: rows, key: key)
        let choice = try command.columnChoice().checked(against: [table.table])
        guard let format = TableFormat(rawValue: format) else { throw OptionError("unknown output format '\(format)'") }
        print(table.rendered(format, columns: choice))
    }
}
