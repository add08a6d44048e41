import Foundation
import Postgres
import PushLedgerSupport
import PushLedgerCLI

/// Every command of the tool; the executable only parses and dispatches.
let commands: [any Command.Type] = [MigrateCommand.self, KeysCommand.self, AppsCommand.self, LinksCommand.self, RetentionCommand.self, PartitionsCommand.self, ImportCommand.self, SimulateCLI.self, AlertCommand.self, TokensCommand.self, ReportCommand.self, QueryCommand.self, RollupCommand.self, EraseCommand.self, ServeCommand.self, TailCommand.self, ShardsCommand.self]

let root = CommandSpec(
    "pushledger", summary: "Push notification permission and delivery analytics",
    discussion: "Measures what APNs/FCM \"sent\" hides: pushes silently lost to permissions, channels and stale tokens.",
    options: [
        .value("database-url", help: "PostgreSQL URL (default: libpq PG* variables)", environment: "DATABASE_URL", placeholder: "url"),
        .value("read-database-url", help: "Hot standby for reports, queries, alert reads", environment: "PUSHLEDGER_READ_DATABASE_URL", placeholder: "url"),
        .value("directory-url", help: "Directory database of a sharded deployment: commands find each app's shard there", environment: "PUSHLEDGER_DIRECTORY_URL", placeholder: "url"),
        .value("sql-dir", help: "The sql/ folder: migrations/ and definitions.list (default: found next to the binary)", environment: "PUSHLEDGER_SQL_DIR", placeholder: "dir"),
        .value("log-level", type: .choice(["debug", "info", "warning", "error"]), help: "Least severe log level on stderr", default: "info", environment: "PUSHLEDGER_LOG_LEVEL"),
    ],
    subcommands: commands.map { $0.spec },
    version: "pushledger 0.1.0")

let environment = ProcessInfo.processInfo.environment
switch CommandParser.parse(Array(CommandLine.arguments.dropFirst()), root: root, environment: environment) {
case .failure(let usage):
    FileHandle.standardError.write(Data((usage.description + "\n").utf8))
    exit(usage.exitCode)
case .success(.help(let text)), .success(.version(let text)):
    FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    exit(0)
case .success(.run(let parsed)):
    let level = Logger.Level.allCases.first { "\($0)" == parsed.string("log-level") } ?? .info
    let logger = Logger(component: "pushledger", minimumLevel: level)
    guard let command = commands.first(where: { $0.spec.name == parsed.path.first }) else {
        FileHandle.standardError.write(Data("pushledger: name a command; see pushledger --help\n".utf8))
        exit(64)
    }
    let context = CommandContext(command: parsed, environment: environment, logger: logger)
    do {
        exit(try command.run(context))
    } catch let usage as OptionError {
        FileHandle.standardError.write(Data("pushledger: \(usage.reason)\n".utf8))
        exit(usage.exitCode)
    } catch let failure as CommandFailure {
        if let detail = failure.detail { logger.debug("command failed", ["detail": detail]) }
        FileHandle.standardError.write(Data("pushledger: \(failure.message)\n".utf8))
        exit(failure.exitCode)
    } catch let error as PostgresError where error.isConnectionProblem {
        let failure = CommandFailure(connection: error)
        logger.debug("database connection problem", ["detail": error.debugDescription])
        FileHandle.standardError.write(Data("pushledger: \(failure.message)\n".utf8))
        exit(failure.exitCode)
    } catch let error as PostgresError {
        logger.debug("database error", ["detail": error.debugDescription])
        FileHandle.standardError.write(Data("pushledger: \(error.description)\n".utf8))
        exit(1)
    } catch {
        FileHandle.standardError.write(Data("pushledger: \(error)\n".utf8))
        exit(1)
    }
}
