import Foundation

/// A set of declared options (``Option``, ``Flag``, ``Argument``, ``OptionGroup`` properties):
/// a command, or a group of options several commands share.
public protocol ParsableArguments: Sendable {
    /// Every stored property is a declaration with its own default; the parser fills them.
    init()

    /// Checks the filled options together (one that needs another, values that exclude each
    /// other); the parser calls it before anything runs, and a thrown error is a usage error.
    func validate() throws(OptionError)
}

extension ParsableArguments {
    public func validate() throws(OptionError) {}
}

/// A command or subcommand of a tool, as a type: its name, help and subcommands in
/// ``configuration``, its options as declared properties.
public protocol ParsableCommand: ParsableArguments {
    static var configuration: CommandConfiguration { get }
}

/// What a command is called and says about itself; its options are its properties.
public struct CommandConfiguration {
    public var name: String
    /// One line, shown in the parent's command list and at the top of `--help`.
    public var summary: String
    /// Further text for `--help`, wrapped to the terminal's 120 columns.
    public var discussion: String?
    /// When not empty, one of them must be named (`report silent-loss`); the command's own
    /// options apply to them too (the root's global options).
    public var subcommands: [any ParsableCommand.Type]
    /// Printed by `--version` (only on the root command).
    public var version: String?

    public init(
        _ name: String, summary: String, discussion: String? = nil, subcommands: [any ParsableCommand.Type] = [],
        version: String? = nil
    ) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.subcommands = subcommands
        self.version = version
    }
}

/// What a command line asks for.
public enum CommandLineRequest {
    /// Run the last command of the chain (the root first), every command of it parsed.
    case run([any ParsableCommand])
    /// Print this help text to standard output and exit 0.
    case help(String)
    /// Print this version to standard output and exit 0.
    case version(String)
}

/// Parses a command line against a tree of command types. A pure function of the arguments and
/// the environment, so every case is testable without a process.
public enum CommandLineParser {
    /// Parses `arguments` (without the program name). Values come from the command line, else
    /// from an option's environment variable, else from its default.
    public static func parse(
        _ arguments: [String], root: any ParsableCommand.Type, environment: [String: String] = [:]
    ) -> Result<CommandLineRequest, UsageError> {
        switch CommandParser.parse(arguments, root: spec(root), environment: environment) {
        case .failure(let error): return .failure(error)
        case .success(.help(let text)): return .success(.help(text))
        case .success(.version(let text)): return .success(.version(text))
        case .success(.run(let parsed)):
            let types = chain(root, path: parsed.path)
            func failure(_ error: OptionError) -> Result<CommandLineRequest, UsageError> {
                let specs = types.map { spec($0) }
                let hint = specs.map(\.name).joined(separator: " ") + " --help"
                return .failure(UsageError(reason: error.reason, usage: HelpText.usage(for: specs), helpHint: hint))
            }
            var commands: [any ParsableCommand] = []
            for type in types {
                let command = type.init()
                do {
                    try Declarations.fill(command, from: parsed)
                    try command.validate()
                } catch {
                    return failure(error)
                }
                commands.append(command)
            }
            return .success(.run(commands))
        }
    }

    /// The `--help` text of the command at `path` below `root` (nil: no such command).
    public static func help(root: any ParsableCommand.Type, path: [String]) -> String? {
        guard case .success(.help(let text)) = parse(path + ["--help"], root: root) else { return nil }
        return text
    }

    /// Every command path below `root`, the root's (`[]`) first: for tests that walk the tool.
    public static func commandPaths(root: any ParsableCommand.Type) -> [[String]] {
        [[]]
            + root.configuration.subcommands.flatMap { sub in
                commandPaths(root: sub).map { [sub.configuration.name] + $0 }
            }
    }

    /// The names of the options and arguments declared by the command at `path` and the commands
    /// above it, each exactly once (a name declared twice is a programming error a test catches).
    public static func declaredNames(root: any ParsableCommand.Type, path: [String]) -> [String] {
        chain(root, path: path).flatMap { type in
            Declarations.collect(type.init()).map { declaration in
                switch declaration {
                case .option(let option): return "--" + option.name
                case .positional(let positional): return "<\(positional.name)>"
                }
            }
        }
    }

    private static func chain(_ root: any ParsableCommand.Type, path: [String]) -> [any ParsableCommand.Type] {
        var types = [root]
        for name in path {
            guard
                let next = types[types.count - 1].configuration.subcommands.first(where: {
                    $0.configuration.name == name
                })
            else { break }
            types.append(next)
        }
        return types
    }

    /// The data the parser and help work from, built from a type's declarations.
    static func spec(_ type: any ParsableCommand.Type) -> CommandSpec {
        let configuration = type.configuration
        var options: [OptionSpec] = []
        var positionals: [PositionalSpec] = []
        for declaration in Declarations.collect(type.init()) {
            switch declaration {
            case .option(let option): options.append(option)
            case .positional(let positional): positionals.append(positional)
            }
        }
        return CommandSpec(
            configuration.name, summary: configuration.summary, discussion: configuration.discussion, options: options,
            positionals: positionals, subcommands: configuration.subcommands.map { spec($0) },
            version: configuration.version)
    }
}
