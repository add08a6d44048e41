import Foundation
import Testing

@testable import PushLedgerSupport
@testable import PushLedgerCLI

private let spec = CommandSpec(
    "tool", summary: "A tool.",
    subcommands: [
        CommandSpec(
            "run", summary: "Run.",
            options: [
                .value("app", help: "App id."),
                .value("threads", type: .integer, help: "Threads.", default: "4"),
                .value("window", type: .duration, help: "Window.", default: "24h"),
                .value("week", type: .week, help: "Week."),
                .value("at", type: .timestamp, help: "When."),
                .value("ratio", type: .number, help: "Ratio."),
                .value("format", type: .choice(["table", "csv", "yaml"]), help: "Format.", default: "table"),
            ],
            positionals: [PositionalSpec("file", help: "File.", optional: true)])
    ])

private func parsed(_ arguments: [String]) throws -> ParsedCommand {
    guard case .success(.run(let command)) = CommandParser.parse(["run"] + arguments, root: spec) else {
        Issue.record("\(arguments) did not parse")
        throw CancellationError()
    }
    return command
}

private func reason(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as OptionError {
        return error.reason
    } catch {
        return "not an OptionError: \(error)"
    }
}

@Suite("Typed option accessors")
struct OptionAccessTests {
    @Test func typedValuesFromTheCommandLineAndDefaults() throws {
        let command = try parsed(["--app", "shop", "--threads", "8", "--week", "2026-W48", "--at", "2026-11-23", "--ratio", "0.5", "f.ndjson"])
        #expect(try command.value(String.self, "app") == "shop")
        #expect(try command.int("threads") == 8)
        #expect(try command.value(TimeSpan.self, "window") == .hours(24))
        #expect(try command.value(ISOWeek.self, "week") == ISOWeek(year: 2026, week: 48))
        #expect(try command.value(Date.self, "at") == Date(timeIntervalSince1970: 1_795_392_000))
        #expect(try command.value(Double.self, "ratio") == 0.5)
        #expect(try command.choice(TableFormat.self, "format") == .table)
        #expect(try command.argument("file") == "f.ndjson")
    }

    @Test func optionalIsNilOnlyWhenNothingWasGiven() throws {
        let command = try parsed([])
        #expect(try command.optional(String.self, "app") == nil)
        #expect(try command.optional(Date.self, "at") == nil)
        #expect(try command.optional(Int.self, "threads") == 4)
    }

    @Test func missingValuesAreUsageErrorsNotCrashes() throws {
        let command = try parsed([])
        #expect(reason { _ = try command.value(String.self, "app") } == "missing option '--app'")
        #expect(reason { _ = try command.argument("file") } == "missing argument <file>")
        #expect(OptionError("x").exitCode == 64)
    }

    @Test func rangesAreCheckedWithTheOptionsName() throws {
        let command = try parsed(["--threads", "0"])
        #expect(reason { _ = try command.positive("threads") } == "--threads must be at least 1, got 0")
        #expect(reason { _ = try command.int("threads", in: 1...64) } == "--threads must be between 1 and 64, got 0")
        #expect(try command.int("threads", in: 0...1) == 0)
    }

    /// A value that passed the parser's type but not the accessor's (a command reading a text
    /// option as a number, or a choice the enumeration lacks) is a one-line reason.
    @Test func aValueOfTheWrongTypeNamesWhatWasExpected() throws {
        let command = try parsed(["--app", "shop", "--format", "yaml"])
        #expect(reason { _ = try command.value(Int.self, "app") } == "invalid value 'shop' for '--app': expected a whole number")
        #expect(reason { _ = try command.value(TimeSpan.self, "app") } == "invalid value 'shop' for '--app': expected a duration such as 24h or 7d")
        #expect(reason { _ = try command.choice(TableFormat.self, "format") }
            == "invalid value 'yaml' for '--format': expected one of table, text, csv, markdown, json")
    }
}
