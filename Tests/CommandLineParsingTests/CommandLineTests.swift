import Foundation
import Testing

@testable import CommandLineParsing
@testable import PushLedgerSupport

/// A tree shaped like the `pushledger` tool's.
private let tool = CommandSpec(
    "pushledger", summary: "Push-notification delivery ledger.",
    options: [.value("database-url", help: "PostgreSQL connection URL.", environment: "PUSHLEDGER_DATABASE_URL")],
    subcommands: [
        CommandSpec(
            "report", summary: "Reports over the outcome engine.",
            subcommands: [
                CommandSpec(
                    "silent-loss", summary: "Silent loss by slice.", discussion: "Rates follow docs/metrics.md.",
                    options: [
                        .value("app", help: "App id.", required: true),
                        .value("from", type: .timestamp, help: "Window start."),
                        .value("to", type: .timestamp, help: "Window end."),
                        .repeatable("channel", help: "Only these channels.", environment: "PUSHLEDGER_CHANNELS"),
                        .value(
                            "format", type: .choice(["table", "csv", "json"]), help: "Output format.", default: "table",
                            short: "f"),
                        .value(
                            "confirmation-window", type: .duration, help: "Wait before calling a send silent.",
                            default: "24h"),
                        .value("limit", type: .integer, help: "Rows at most.", environment: "PUSHLEDGER_LIMIT"),
                        .value("min-delta", type: .number, help: "Smallest change, in points."),
                        .flag("dry-run", help: "Show the query only.", environment: "PUSHLEDGER_DRY_RUN", short: "n"),
                    ]),
                CommandSpec(
                    "weekly", summary: "The weekly report.", options: [.value("week", type: .week, help: "ISO week.")]),
            ]),
        CommandSpec(
            "keys", summary: "Manage ingest keys.",
            subcommands: [
                CommandSpec(
                    "create", summary: "Create a key.", options: [.value("label", help: "A name for the key.")],
                    positionals: [
                        PositionalSpec("app", help: "App id."),
                        PositionalSpec("days", type: .integer, help: "Lifetime.", optional: true),
                    ]),
                CommandSpec("list", summary: "List keys."),
            ]),
        CommandSpec(
            "ingest", summary: "Load batches from files.",
            positionals: [PositionalSpec("file", help: "Batch files.", optional: true, repeating: true)]),
    ],
    version: "pushledger 0.1.0")

private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ParsedCommand {
    let result = CommandParser.parse(arguments, root: tool, environment: environment)
    guard case .success(.run(let parsed)) = result else {
        Issue.record("expected a command to run, got \(result)")
        throw CancellationError()
    }
    return parsed
}

private func reason(_ arguments: [String], environment: [String: String] = [:]) -> String? {
    guard case .failure(let error) = CommandParser.parse(arguments, root: tool, environment: environment) else {
        return nil
    }
    return error.reason
}

@Suite("Command-line parsing")
struct CommandLineTests {
    @Test func valuesInBothSpellings() throws {
        let parsed = try run([
            "report", "silent-loss", "--app", "shop", "--from=2026-11-23", "--to", "2026-11-30T00:00Z",
        ])
        #expect(parsed.path == ["report", "silent-loss"])
        #expect(parsed.command == "report silent-loss")
        #expect(parsed.string("app") == "shop")
        #expect(parsed.timestamp("from") == Date(timeIntervalSince1970: 1_795_392_000))
        #expect(parsed.timestamp("to") == Date(timeIntervalSince1970: 1_795_996_800))
        #expect(parsed.string("format") == "table")
        #expect(parsed.sources["format"] == .defaultValue)
        #expect(parsed.duration("confirmation-window") == .hours(24))
        #expect(parsed.string("limit") == nil)
        #expect(!parsed.flag("dry-run"))
    }

    @Test func equalsSignKeepsTheRestOfTheValue() throws {
        let parsed = try run(["--database-url=postgres://h/db?sslmode=require&x=1", "keys", "list"])
        #expect(parsed.string("database-url") == "postgres://h/db?sslmode=require&x=1")
        #expect(try run(["report", "silent-loss", "--app="]).string("app") == "")
    }

    @Test func typedValues() throws {
        let parsed = try run([
            "report", "silent-loss", "--app", "a", "--limit", "20", "--min-delta", "-2.5", "--confirmation-window",
            "90m",
        ])
        #expect(parsed.integer("limit") == 20)
        #expect(parsed.number("min-delta") == -2.5)
        #expect(parsed.duration("confirmation-window") == .minutes(90))
        #expect(try run(["report", "weekly", "--week", "2026-W48"]).week("week") == ISOWeek(year: 2026, week: 48))
    }

    @Test func flagsAndShortOptions() throws {
        let parsed = try run(["report", "silent-loss", "-n", "--app", "a", "-f", "csv"])
        #expect(parsed.flag("dry-run"))
        #expect(parsed.sources["dry-run"] == .commandLine)
        #expect(parsed.string("format") == "csv")
        #expect(
            reason(["report", "silent-loss", "--app", "a", "--dry-run=yes"]) == "option '--dry-run' takes no value")
        #expect(reason(["report", "silent-loss", "--app", "a", "-x"]) == "unknown option '-x'")
        #expect(reason(["report", "silent-loss", "--app", "a", "-nf"]) == "unknown option '-nf'")
    }

    @Test func repeatableOptions() throws {
        let parsed = try run(["report", "silent-loss", "--app", "a", "--channel", "promo", "--channel=alerts"])
        #expect(parsed.strings("channel") == ["promo", "alerts"])
        #expect(parsed.string("channel") == "alerts")
        #expect(reason(["report", "silent-loss", "--app", "a", "--app", "b"]) == "option '--app' given more than once")
    }

    @Test func unknownOptionsAndCommands() {
        #expect(
            reason(["report", "silent-loss", "--app", "a", "--frm", "2026-11-23"])
                == "unknown option '--frm' (did you mean '--from'?)")
        #expect(reason(["report", "silent-loss", "--app", "a", "--colour"]) == "unknown option '--colour'")
        #expect(reason(["--verison"]) == "unknown option '--verison' (did you mean '--version'?)")
        #expect(
            reason(["report", "silent-los"])
                == "unknown command 'silent-los' (did you mean 'silent-loss'?) (commands: silent-loss, weekly)")
        #expect(reason(["frobnicate"]) == "unknown command 'frobnicate' (commands: report, keys, ingest)")
        // Asking for help does not turn an unknown command into success.
        #expect(reason(["frobnicate", "--help"]) == "unknown command 'frobnicate' (commands: report, keys, ingest)")
        #expect(
            reason(["report", "weekyl", "-h"])
                == "unknown command 'weekyl' (did you mean 'weekly'?) (commands: silent-loss, weekly)")
        #expect(reason(["report"]) == "missing subcommand (one of: silent-loss, weekly)")
        #expect(reason([]) == "missing subcommand (one of: report, keys, ingest)")
        // Options of a subcommand are not options of its parent.
        #expect(reason(["report", "--app", "a", "silent-loss"]) == "unknown option '--app'")
    }

    @Test func missingValues() {
        #expect(reason(["report", "silent-loss", "--app"]) == "missing value for '--app'")
        #expect(reason(["report", "silent-loss", "--app", "--dry-run"]) == "missing value for '--app'")
        #expect(reason(["report", "silent-loss", "--app", "a", "-f"]) == "missing value for '-f'")
        #expect(reason(["report", "silent-loss"]) == "missing option '--app'")
    }

    @Test(arguments: [
        (["--limit", "ten"], "invalid value 'ten' for '--limit': expected a whole number"),
        (["--limit", "1.5"], "invalid value '1.5' for '--limit': expected a whole number"),
        (["--min-delta", "nan"], "invalid value 'nan' for '--min-delta': expected a number"),
        (["--from", "2026-13-01"], "invalid value '2026-13-01' for '--from': month must be 01 to 12"),
        (
            ["--confirmation-window", "1 day"],
            "invalid value '1 day' for '--confirmation-window': unit must be one of w, d, h, m, s"
        ),
        (["--format", "xml"], "invalid value 'xml' for '--format': expected one of table, csv, json"),
        (["-f", "xml"], "invalid value 'xml' for '-f': expected one of table, csv, json"),
    ])
    func badValueTypes(extra: [String], expected: String) {
        #expect(reason(["report", "silent-loss", "--app", "a"] + extra) == expected)
    }

    @Test func badWeek() {
        #expect(
            reason(["report", "weekly", "--week", "2021-W53"])
                == "invalid value '2021-W53' for '--week': 2021 has weeks 01 to 52")
    }

    @Test func environmentFallbackOrder() throws {
        let environment = [
            "PUSHLEDGER_LIMIT": "50", "PUSHLEDGER_DATABASE_URL": "postgres://env",
            "PUSHLEDGER_CHANNELS": "promo, alerts,,",
        ]
        let fromEnvironment = try run(["report", "silent-loss", "--app", "a"], environment: environment)
        #expect(fromEnvironment.integer("limit") == 50)
        #expect(fromEnvironment.sources["limit"] == .environment("PUSHLEDGER_LIMIT"))
        #expect(fromEnvironment.string("database-url") == "postgres://env")
        #expect(fromEnvironment.strings("channel") == ["promo", "alerts"])
        let fromFlags = try run(
            [
                "--database-url", "postgres://flag", "report", "silent-loss", "--app", "a", "--limit", "5", "--channel",
                "x",
            ],
            environment: environment)
        #expect(fromFlags.integer("limit") == 5)
        #expect(fromFlags.sources["limit"] == .commandLine)
        #expect(fromFlags.string("database-url") == "postgres://flag")
        #expect(fromFlags.strings("channel") == ["x"])
        // An empty variable counts as unset.
        #expect(
            try run(["report", "silent-loss", "--app", "a"], environment: ["PUSHLEDGER_LIMIT": ""]).integer("limit")
                == nil)
    }

    @Test func environmentValuesAreChecked() throws {
        #expect(
            reason(["report", "silent-loss", "--app", "a"], environment: ["PUSHLEDGER_LIMIT": "lots"])
                == "invalid value 'lots' for '--limit' (from PUSHLEDGER_LIMIT): expected a whole number")
        #expect(
            try run(["report", "silent-loss", "--app", "a"], environment: ["PUSHLEDGER_DRY_RUN": "TRUE"]).flag(
                "dry-run"))
        #expect(
            try !run(["report", "silent-loss", "--app", "a"], environment: ["PUSHLEDGER_DRY_RUN": "0"]).flag("dry-run"))
        #expect(
            reason(["report", "silent-loss", "--app", "a"], environment: ["PUSHLEDGER_DRY_RUN": "maybe"])
                == """
                invalid value 'maybe' for '--dry-run' (from PUSHLEDGER_DRY_RUN): expected 1, true, yes, 0, false \
                or no
                """
        )
    }

    @Test func globalOptionsAnywhereBelowTheirCommand() throws {
        #expect(try run(["keys", "list", "--database-url", "postgres://x"]).string("database-url") == "postgres://x")
        #expect(try run(["--database-url", "postgres://x", "keys", "list"]).string("database-url") == "postgres://x")
    }

    @Test func positionals() throws {
        let created = try run(["keys", "create", "shop", "--label", "ci", "90"])
        #expect(created.path == ["keys", "create"])
        #expect(created.positional("app") == "shop")
        #expect(created.positional("days") == "90")
        #expect(try run(["keys", "create", "shop"]).positional("days") == nil)
        #expect(reason(["keys", "create"]) == "missing argument <app>")
        #expect(reason(["keys", "create", "shop", "x"]) == "invalid value 'x' for <days>: expected a whole number")
        #expect(reason(["keys", "create", "shop", "1", "2"]) == "unexpected argument '2'")
        #expect(reason(["keys", "list", "extra"]) == "unexpected argument 'extra'")
        #expect(try run(["keys", "create", "shop", "-3"]).positional("days") == "-3")
    }

    @Test func repeatingPositionalsAndDoubleDash() throws {
        #expect(try run(["ingest"]).positionalList("file") == [])
        #expect(try run(["ingest", "a.json", "b.json"]).positionalList("file") == ["a.json", "b.json"])
        #expect(try run(["ingest", "--", "--help", "-x"]).positionalList("file") == ["--help", "-x"])
    }

    @Test func versionAndHelpWin() throws {
        #expect(CommandParser.parse(["--version"], root: tool) == .success(.version("pushledger 0.1.0")))
        #expect(CommandParser.parse(["report", "--version"], root: tool) == .success(.version("pushledger 0.1.0")))
        guard
            case .success(.help(let text)) = CommandParser.parse(
                ["report", "silent-loss", "--frm", "x", "-h"], root: tool)
        else {
            Issue.record("expected help")
            return
        }
        #expect(text.hasPrefix("Silent loss by slice.\n"))
        guard case .success(.help(let rootHelp)) = CommandParser.parse(["--help", "report"], root: tool) else {
            Issue.record("expected help")
            return
        }
        #expect(rootHelp.hasPrefix("Push-notification delivery ledger.\n"))
    }

    @Test func usageError() throws {
        guard case .failure(let error) = CommandParser.parse(["report", "silent-loss", "--limit", "x"], root: tool)
        else {
            Issue.record("expected a usage error")
            return
        }
        #expect(error.exitCode == 64)
        #expect(
            error.description == """
                error: invalid value 'x' for '--limit': expected a whole number
                Usage: pushledger report silent-loss --app <value> [<options>]
                See 'pushledger report silent-loss --help'.
                """)
    }

    @Test func helpText() throws {
        guard case .success(.help(let text)) = CommandParser.parse(["report", "silent-loss", "--help"], root: tool)
        else {
            Issue.record("expected help")
            return
        }
        #expect(
            text == """
                Silent loss by slice.

                Usage: pushledger report silent-loss --app <value> [<options>]

                Rates follow docs/metrics.md.

                OPTIONS:
                  --app <value>                 App id. (required)
                  --from <date>                 Window start.
                  --to <date>                   Window end.
                  --channel <value>             Only these channels. (repeatable; env: PUSHLEDGER_CHANNELS)
                  -f, --format <table|csv|json>
                                                Output format. (default: table)
                  --confirmation-window <duration>
                                                Wait before calling a send silent. (default: 24h)
                  --limit <n>                   Rows at most. (env: PUSHLEDGER_LIMIT)
                  --min-delta <x>               Smallest change, in points.
                  -n, --dry-run                 Show the query only. (env: PUSHLEDGER_DRY_RUN)
                  -h, --help                    Show help for this command.

                GLOBAL OPTIONS:
                  --database-url <value>        PostgreSQL connection URL. (env: PUSHLEDGER_DATABASE_URL)

                """)
    }

    @Test func groupHelpListsSubcommands() throws {
        guard case .success(.help(let text)) = CommandParser.parse(["keys", "--help"], root: tool) else {
            Issue.record("expected help")
            return
        }
        #expect(
            text == """
                Manage ingest keys.

                Usage: pushledger keys [<options>] <subcommand>

                OPTIONS:
                  -h, --help              Show help for this command.

                GLOBAL OPTIONS:
                  --database-url <value>  PostgreSQL connection URL. (env: PUSHLEDGER_DATABASE_URL)

                SUBCOMMANDS:
                  create                  Create a key.
                  list                    List keys.

                See 'pushledger keys <subcommand> --help' for a subcommand's help.

                """)
    }

    @Test func rootHelpShowsVersionAndArgumentsHelpShowsPositionals() throws {
        guard case .success(.help(let root)) = CommandParser.parse(["-h"], root: tool),
            case .success(.help(let create)) = CommandParser.parse(["keys", "create", "-h"], root: tool)
        else {
            Issue.record("expected help")
            return
        }
        #expect(root.contains("\n  --version "))
        #expect(!create.contains("--version"))
        #expect(create.contains("Usage: pushledger keys create [<options>] <app> [<days>]\n"))
        #expect(create.contains("ARGUMENTS:\n  <app>                   App id.\n  [<days>]                Lifetime.\n"))
    }

    @Test func editDistance() {
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("abc", "") == 3)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("from", "from") == 0)
    }
}

/// The spec-level parser keeps text; these read it the way the declarations' types do.
extension ParsedCommand {
    fileprivate func integer(_ name: String) -> Int? { string(name).flatMap { Int.option(from: $0) } }
    fileprivate func number(_ name: String) -> Double? { string(name).flatMap { Double.option(from: $0) } }
    fileprivate func duration(_ name: String) -> TimeSpan? { string(name).flatMap { TimeSpan.option(from: $0) } }
    fileprivate func week(_ name: String) -> ISOWeek? { string(name).flatMap { ISOWeek.option(from: $0) } }
    fileprivate func timestamp(_ name: String) -> Date? { string(name).flatMap { Date.option(from: $0) } }
}
