import CommandLineParsing
import PushLedgerSupport

/// `pushledger`: the root of the command tree, and the options every command takes.
struct PushLedgerCommand: ParsableCommand {
    /// The release (VERSION) and the commit built, stamped by the BuildInfo plugin.
    static let version = "pushledger \(BuildInfo.version) (commit \(BuildInfo.commit))"

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "pushledger", summary: "Push notification permission and delivery analytics",
            discussion:
                """
                Measures what APNs/FCM \"sent\" hides: pushes silently lost to permissions, channels and stale tokens.
                """,
            subcommands: [
                MigrateCommand.self, KeysCommand.self, AppsCommand.self, LinksCommand.self, RetentionCommand.self,
                PartitionsCommand.self, ImportCommand.self, SimulateCLI.self, AlertCommand.self, TokensCommand.self,
                ReportCommand.self, QueryCommand.self, RollupCommand.self, EraseCommand.self, ServeCommand.self,
                TailCommand.self, ShardsCommand.self,
            ],
            version: version)
    }

    @OptionGroup var global: GlobalOptions
}

/// Options of the root command: every subcommand accepts them (`GLOBAL OPTIONS` in help).
struct GlobalOptions: ParsableArguments {
    @Option(
        name: "database-url", help: "PostgreSQL URL (default: libpq PG* variables)", environment: "DATABASE_URL",
        placeholder: "url")
    var databaseURL: String?

    @Option(
        name: "read-database-url", help: "Hot standby for reports, queries, alert reads",
        environment: "PUSHLEDGER_READ_DATABASE_URL", placeholder: "url")
    var readDatabaseURL: String?

    @Option(
        name: "directory-url", help: "Directory database of a sharded deployment: commands find each app's shard there",
        environment: "PUSHLEDGER_DIRECTORY_URL", placeholder: "url")
    var directoryURL: String?

    @Option(
        help: "The sql/ folder: migrations/ and definitions.list (default: found next to the binary)",
        environment: "PUSHLEDGER_SQL_DIR", placeholder: "dir")
    var sqlDir: String?

    @Option(help: "Least severe log level on stderr", default: .info, environment: "PUSHLEDGER_LOG_LEVEL")
    var logLevel: LogLevel
}

/// `--log-level`: the logger's levels by name.
enum LogLevel: String, CaseIterable, OptionValue {
    case debug, info, warning, error

    var level: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }
}
