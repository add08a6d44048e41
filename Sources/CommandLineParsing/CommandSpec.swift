import PushLedgerSupport

/// A command of the `pushledger` tool, declared as data: its options, positional arguments and
/// subcommands. Parsing (``CommandParser``) and help text (``HelpText``) are derived from it.
struct CommandSpec: Sendable {
    var name: String
    /// One line, shown in the parent's command list and at the top of `--help`.
    var summary: String
    /// Further paragraphs for `--help`.
    var discussion: String?
    /// Options of this command; its subcommands accept them too (for global options).
    var options: [OptionSpec]
    var positionals: [PositionalSpec]
    /// When not empty, one of them must be named (`report silent-loss`).
    var subcommands: [CommandSpec]
    /// Printed by `--version` (only on the root command).
    var version: String?

    init(
        _ name: String, summary: String, discussion: String? = nil, options: [OptionSpec] = [],
        positionals: [PositionalSpec] = [], subcommands: [CommandSpec] = [], version: String? = nil
    ) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.version = version
    }

    func subcommand(named name: String) -> CommandSpec? { subcommands.first { $0.name == name } }
}

/// What text an option value (or positional) must be; checked while parsing, so a typed
/// accessor on ``ParsedCommand`` never meets a malformed value.
public enum ValueType: Sendable, Equatable {
    case string
    /// A whole number.
    case integer
    /// A finite decimal number.
    case number
    /// A date or date-time (``Timestamp/parseInstant(_:timeZone:)``).
    case timestamp
    /// A span such as `24h` or `7d` (``TimeSpan``).
    case duration
    /// An ISO week such as `2026-W48`.
    case week
    /// One of the listed words.
    case choice([String])

    /// Why `text` is not of this type, or nil when it is.
    func problem(with text: String) -> String? {
        switch self {
        case .string: return nil
        case .integer: return Int(text) == nil ? "expected a whole number" : nil
        case .number: return Double(text).map { $0.isFinite } == true ? nil : "expected a number"
        case .timestamp: return Self.reason { () throws(TimeParseError) in _ = try Timestamp.parseInstant(text) }
        case .duration: return Self.reason { () throws(TimeParseError) in _ = try TimeSpan(parsing: text) }
        case .week: return Self.reason { () throws(TimeParseError) in _ = try ISOWeek(parsing: text) }
        case .choice(let words): return words.contains(text) ? nil : "expected one of \(words.joined(separator: ", "))"
        }
    }

    /// The placeholder shown in help, e.g. `--from <date>`.
    var placeholder: String {
        switch self {
        case .string: return "value"
        case .integer: return "n"
        case .number: return "x"
        case .timestamp: return "date"
        case .duration: return "duration"
        case .week: return "week"
        case .choice(let words): return words.joined(separator: "|")
        }
    }

    private static func reason(_ body: () throws(TimeParseError) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return error.reason
        }
    }
}

/// A `--name` option: a value, a flag, or a value that may be given several times.
struct OptionSpec: Sendable {
    enum Kind: Sendable, Equatable {
        case value
        case flag
        case repeatable
    }

    var name: String
    var kind: Kind
    var type: ValueType
    var help: String
    var short: Character?
    /// Used when neither the command line nor the environment gives a value.
    var defaultValues: [String]
    /// An environment variable read when the option is not on the command line (the command
    /// line wins). Repeatable options split it on commas; flags take 1/true/yes or 0/false/no.
    var environment: String?
    var isRequired: Bool
    /// Overrides the type's placeholder in help.
    var placeholder: String?

    /// A single-valued option: `--from 2026-11-23` or `--from=2026-11-23`.
    static func value(
        _ name: String, type: ValueType = .string, help: String, default defaultValue: String? = nil,
        environment: String? = nil, required: Bool = false, short: Character? = nil, placeholder: String? = nil
    ) -> OptionSpec {
        OptionSpec(
            name: name, kind: .value, type: type, help: help, short: short,
            defaultValues: defaultValue.map { [$0] } ?? [],
            environment: environment, isRequired: required, placeholder: placeholder)
    }

    /// A boolean switch: present or not.
    static func flag(_ name: String, help: String, environment: String? = nil, short: Character? = nil) -> OptionSpec {
        OptionSpec(
            name: name, kind: .flag, type: .string, help: help, short: short, defaultValues: [],
            environment: environment, isRequired: false, placeholder: nil)
    }

    /// An option that may be given several times: `--channel a --channel b`.
    static func repeatable(
        _ name: String, type: ValueType = .string, help: String, default defaultValues: [String] = [],
        environment: String? = nil, short: Character? = nil, placeholder: String? = nil
    ) -> OptionSpec {
        OptionSpec(
            name: name, kind: .repeatable, type: type, help: help, short: short, defaultValues: defaultValues,
            environment: environment, isRequired: false, placeholder: placeholder)
    }
}

/// A positional argument such as `<app>`.
struct PositionalSpec: Sendable {
    var name: String
    var type: ValueType
    var help: String
    var isOptional: Bool
    /// Takes all remaining arguments (must be the last positional).
    var isRepeating: Bool

    init(_ name: String, type: ValueType = .string, help: String, optional: Bool = false, repeating: Bool = false) {
        self.name = name
        self.type = type
        self.help = help
        self.isOptional = optional
        self.isRepeating = repeating
    }
}
