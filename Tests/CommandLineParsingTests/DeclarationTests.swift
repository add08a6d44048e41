import Foundation
import Testing

@testable import CommandLineParsing
@testable import PushLedgerSupport

// A small tool declared the way `pushledger` declares its commands.

private enum Format: String, CaseIterable, OptionValue {
    case table, csv, json, yaml
}

private struct Tool: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "tool", summary: "A tool.", subcommands: [RunCommand.self, GroupCommand.self], version: "tool 1.0")
    }

    @Option(name: "database-url", help: "Database.", environment: "TOOL_DATABASE_URL")
    var databaseURL: String?
}

private struct Shared: ParsableArguments {
    @Option(help: "App id.", environment: "TOOL_APP")
    var app: String

    @Option(help: "When.")
    var asOf: Date?
}

private struct RunCommand: ParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration("run", summary: "Run.") }

    @OptionGroup var shared: Shared

    @Option(short: "t", help: "Threads.", default: 4)
    var threads: Int

    @Option(help: "Window.", default: .hours(24))
    var window: TimeSpan

    @Option(help: "Week.")
    var week: ISOWeek?

    @Option(help: "Ratio.")
    var ratio: Double?

    @Option(help: "Format.", default: .table, choices: [.table, .csv, .json])
    var format: Format

    @Option(name: "channel", help: "Channels.", environment: "TOOL_CHANNELS")
    var channels: [String]

    @Option(help: "An id.")
    var installation: UUID?

    @Flag(help: "Only show.", environment: "TOOL_DRY_RUN")
    var dryRun: Bool

    @Argument(help: "Input file.")
    var file: String?

    func validate() throws(OptionError) {
        guard !(dryRun && file == nil) else { throw OptionError("--dry-run needs an input file") }
    }
}

private struct GroupCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration("group", summary: "A group.", subcommands: [LeafCommand.self])
    }
}

private struct LeafCommand: ParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration("leaf", summary: "A leaf.") }

    @Argument(help: "Files.")
    var files: [String]
}

private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Tool, RunCommand) {
    let result = CommandLineParser.parse(arguments, root: Tool.self, environment: environment)
    guard case .success(.run(let chain)) = result, let root = chain.first as? Tool,
        let command = chain.last as? RunCommand
    else {
        Issue.record("expected `run` to run, got \(result)")
        throw CancellationError()
    }
    return (root, command)
}

private func usage(_ arguments: [String], environment: [String: String] = [:]) -> UsageError? {
    guard case .failure(let error) = CommandLineParser.parse(arguments, root: Tool.self, environment: environment)
    else {
        return nil
    }
    return error
}

@Suite("Commands declared as types")
struct DeclarationTests {
    @Test func typedValuesAndDefaults() throws {
        let (root, command) = try run([
            "--database-url", "postgres://h/db", "run", "--app", "shop", "-t", "8", "--week", "2026-W48", "--as-of",
            "2026-11-23", "--ratio", "0.5", "--format", "csv", "--channel", "a", "--channel", "b", "--installation",
            "1b4e28ba-2fa1-11d2-883f-0016d3cca427", "--dry-run", "f.ndjson",
        ])
        #expect(root.databaseURL == "postgres://h/db")
        #expect(command.shared.app == "shop")
        #expect(command.shared.asOf == Date(timeIntervalSince1970: 1_795_392_000))
        #expect(command.threads == 8)
        #expect(command.window == .hours(24))
        #expect(command.week == ISOWeek(year: 2026, week: 48))
        #expect(command.ratio == 0.5)
        #expect(command.format == .csv)
        #expect(command.channels == ["a", "b"])
        #expect(command.installation == UUID(uuidString: "1B4E28BA-2FA1-11D2-883F-0016D3CCA427"))
        #expect(command.dryRun)
        #expect(command.file == "f.ndjson")
    }

    @Test func absentValuesAreDefaultsOrNil() throws {
        let (root, command) = try run(["run", "--app", "a"])
        #expect(root.databaseURL == nil)
        #expect(command.threads == 4 && command.window == .hours(24) && command.format == .table)
        #expect(command.week == nil && command.ratio == nil && command.shared.asOf == nil && command.file == nil)
        #expect(command.channels.isEmpty && !command.dryRun)
    }

    @Test func environmentFallbacksAreDeclaredWithTheOption() throws {
        let environment = [
            "TOOL_APP": "from-env", "TOOL_DATABASE_URL": "postgres://env", "TOOL_CHANNELS": "x, y",
            "TOOL_DRY_RUN": "yes",
        ]
        let (root, command) = try run(["run", "in.ndjson"], environment: environment)
        #expect(root.databaseURL == "postgres://env")
        #expect(command.shared.app == "from-env" && command.channels == ["x", "y"] && command.dryRun)
        let (_, given) = try run(["run", "--app", "flag", "in.ndjson"], environment: environment)
        #expect(given.shared.app == "flag", "the command line wins")
    }

    @Test func propertyNamesBecomeOptionNames() {
        #expect(Declarations.optionName("asOf") == "as-of")
        #expect(Declarations.optionName("fcmAppID") == "fcm-app-id")
        #expect(Declarations.optionName("iosAppIDs") == "ios-app-ids")
        #expect(Declarations.optionName("sha256Sum") == "sha256-sum")
        #expect(Declarations.optionName("app") == "app")
    }

    @Test func badUsageIsOneReasonAndExit64() throws {
        let cases: [([String], String)] = [
            (["run"], "missing option '--app'"),
            (["run", "--app", "a", "--threds", "2"], "unknown option '--threds' (did you mean '--threads'?)"),
            (
                ["run", "--app", "a", "--threads", "many"],
                "invalid value 'many' for '--threads': expected a whole number"
            ),
            (
                ["run", "--app", "a", "--format", "yaml"],
                "invalid value 'yaml' for '--format': expected one of table, csv, json"
            ),
            (["run", "--app", "a", "--as-of", "soon"], "invalid value 'soon' for '--as-of': "),
            (
                ["run", "--app", "a", "--installation", "nope"],
                "invalid value 'nope' for '--installation': expected a UUID"
            ),
            (["run", "--app", "a", "--dry-run=yes"], "option '--dry-run' takes no value"),
            (["run", "--app", "a", "--threads"], "missing value for '--threads'"),
            (["run", "--app", "a", "one", "two"], "unexpected argument 'two'"),
            (["runn"], "unknown command 'runn' (did you mean 'run'?) (commands: run, group)"),
            (["group"], "missing subcommand (one of: leaf)"),
            // the command's own validate(), after every option was read
            (["run", "--app", "a", "--dry-run"], "--dry-run needs an input file"),
        ]
        for (arguments, reason) in cases {
            let error = try #require(usage(arguments), "\(arguments) should fail")
            #expect(error.reason.hasPrefix(reason), "\(arguments): \(error.reason)")
            #expect(error.exitCode == 64)
            #expect(!error.reason.contains("\n"))
        }
        #expect(
            usage(["run", "--app", "a", "--installation", "nope"])?.usage.hasPrefix("Usage: tool run --app") == true)
    }

    @Test func rangeChecksNameTheOption() throws {
        let (_, command) = try run(["run", "--app", "a", "--threads", "0"])
        #expect(command.$threads.display == "--threads")
        #expect(throws: OptionError("--threads must be at least 1, got 0")) { try command.$threads.positive() }
        #expect(throws: OptionError("--threads must be between 1 and 64, got 0")) {
            try command.$threads.within(1...64)
        }
        #expect(try command.$threads.within(0...1) == 0)
    }

    @Test func helpIsGeneratedFromTheDeclarations() throws {
        let help = try #require(CommandLineParser.help(root: Tool.self, path: ["run"]))
        #expect(help.contains("Usage: tool run --app <value> [<options>] [<file>]"))
        #expect(help.contains("-t, --threads <n>"))
        #expect(help.contains("Threads. (default: 4)"))
        #expect(help.contains("--format <table|csv|json>"))
        #expect(help.contains("--channel <value>") && help.contains("repeatable; env: TOOL_CHANNELS"))
        #expect(help.contains("--as-of <date>"))
        #expect(help.contains("GLOBAL OPTIONS:") && help.contains("--database-url"))
        #expect(CommandLineParser.help(root: Tool.self, path: ["group", "leaf"])?.contains("[<files> ...]") == true)
        #expect(CommandLineParser.commandPaths(root: Tool.self) == [[], ["run"], ["group"], ["group", "leaf"]])
        #expect(
            CommandLineParser.declaredNames(root: Tool.self, path: ["run"]).prefix(4)
                == ["--database-url", "--app", "--as-of", "--threads"])
    }

    @Test func longHelpIsWrappedToTheTerminal() {
        let words = Array(repeating: "word", count: 100).joined(separator: " ")
        let lines = HelpText.wrap(words, width: 30)
        #expect(lines.allSatisfy { $0.count <= 30 })
        #expect(lines.joined(separator: " ") == words)
        #expect(HelpText.wrap(String(repeating: "x", count: 40), width: 30) == [String(repeating: "x", count: 40)])
    }
}
