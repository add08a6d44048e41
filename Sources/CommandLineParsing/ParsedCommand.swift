import Foundation
import PushLedgerSupport

/// What the command line asks for.
enum Invocation: Sendable, Equatable {
    /// Run a command with its parsed arguments.
    case run(ParsedCommand)
    /// Print this help text to standard output and exit 0.
    case help(String)
    /// Print this version to standard output and exit 0.
    case version(String)
}

/// A command line that can't be run: a one-line reason, and the usage of the command it
/// reached. `description` is what to print on standard error before exiting with ``exitCode``.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// E.g. "unknown option '--frm' (did you mean '--from'?)".
    public let reason: String
    /// The usage line of the command reached, e.g. "usage: pushledger report silent-loss [<options>]".
    public let usage: String
    /// The words that show that command's help, e.g. "pushledger report silent-loss --help".
    public let helpHint: String

    /// ``ExitCode/usage``, as the process status: a parse result ends the process, it is not thrown.
    public var exitCode: Int32 { ExitCode.usage.rawValue }

    public var description: String {
        "error: \(reason)\n\(usage)\nSee '\(helpHint)'."
    }
}

/// Where a value came from, for messages and `--verbose` output.
public enum ValueSource: Sendable, Equatable {
    case commandLine
    case environment(String)
    case defaultValue
}

/// The result of parsing, by name: which command, and its option and positional values, checked
/// against their types. Internal: commands read their declared properties, filled from this.
struct ParsedCommand: Sendable, Equatable {
    /// Subcommand names below the root, e.g. `["report", "silent-loss"]`.
    let path: [String]
    /// Option values by option name (flags are absent here).
    let values: [String: [String]]
    /// Names of the flags that are set.
    let flags: Set<String>
    /// Positional values by positional name.
    let positionals: [String: [String]]
    /// Where each option value or flag came from.
    let sources: [String: ValueSource]

    init(
        path: [String], values: [String: [String]] = [:], flags: Set<String> = [],
        positionals: [String: [String]] = [:],
        sources: [String: ValueSource] = [:]
    ) {
        self.path = path
        self.values = values
        self.flags = flags
        self.positionals = positionals
        self.sources = sources
    }

    /// The command's words, e.g. "report silent-loss".
    var command: String { path.joined(separator: " ") }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The (last) value of an option, or nil when it has none.
    func string(_ name: String) -> String? { values[name]?.last }

    /// All values of a repeatable option.
    func strings(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of a positional argument.
    func positional(_ name: String) -> String? { positionals[name]?.first }

    /// All values of a repeating positional argument.
    func positionalList(_ name: String) -> [String] { positionals[name] ?? [] }
}
