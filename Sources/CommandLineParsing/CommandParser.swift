import Foundation

/// Parses command-line arguments against a ``CommandSpec`` tree. A pure function of the
/// arguments and the environment, so every case is testable without a process.
enum CommandParser {
    /// Parses `arguments` (without the program name).
    ///
    /// Values come from the command line, else from an option's environment variable, else
    /// from its default. `--help`/`-h` anywhere before `--` shows the help of the command
    /// reached so far, even when other arguments are wrong, unless a command word is unknown:
    /// that stays an error, so a typo never looks like success.
    static func parse(
        _ arguments: [String], root: CommandSpec, environment: [String: String] = [:]
    ) -> Result<Invocation, UsageError> {
        var state = State(root: root)
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if state.onlyPositionals {
                state.rawPositionals.append(argument)
            } else if argument == "--" {
                state.onlyPositionals = true
            } else if argument == "--help" || argument == "-h" {
                if state.unknownCommand { return state.usageFailure() }
                return .success(.help(HelpText.help(for: state.chain)))
            } else if argument == "--version", let version = root.version {
                return .success(.version(version))
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
                state.consumeOption(
                    named: name, display: "--\(name)", inline: inline, arguments: arguments, index: &index)
            } else if argument.count > 1, argument.hasPrefix("-"), Double(argument) == nil {
                state.consumeShortOption(argument, arguments: arguments, index: &index)
            } else if state.rawPositionals.isEmpty, !state.command.subcommands.isEmpty {
                state.enterSubcommand(argument)
            } else {
                state.rawPositionals.append(argument)
            }
        }
        return state.finish(environment: environment)
    }

    /// The words of a parse under way, and its first error (kept so a later `--help` still wins).
    private struct State {
        var chain: [CommandSpec]
        var given: [String: [String]] = [:]
        var givenFlags: Set<String> = []
        var rawPositionals: [String] = []
        var onlyPositionals = false
        var failure: String?
        /// Whether `failure` is a word that names no command.
        var unknownCommand = false

        init(root: CommandSpec) { chain = [root] }

        var command: CommandSpec { chain[chain.count - 1] }

        /// Options of the command and its ancestors, nearest first, one per name.
        var visibleOptions: [OptionSpec] {
            var seen = Set<String>()
            return chain.reversed().flatMap(\.options).filter { seen.insert($0.name).inserted }
        }

        mutating func fail(_ reason: String) {
            if failure == nil { failure = reason }
        }

        mutating func enterSubcommand(_ name: String) {
            if let subcommand = command.subcommand(named: name) {
                chain.append(subcommand)
            } else if failure == nil {
                let names = command.subcommands.map(\.name)
                fail(
                    "unknown command '\(name)'" + Suggestion.text(for: name, among: names, prefix: "")
                        + " (commands: \(names.joined(separator: ", ")))")
                unknownCommand = true
            }
        }

        mutating func consumeShortOption(_ argument: String, arguments: [String], index: inout Int) {
            let letter = argument.dropFirst()
            guard letter.count == 1, let option = visibleOptions.first(where: { $0.short == letter.first }) else {
                fail("unknown option '\(argument)'")
                return
            }
            consume(option, display: argument, inline: nil, arguments: arguments, index: &index)
        }

        mutating func consumeOption(
            named name: String, display: String, inline: String?, arguments: [String], index: inout Int
        ) {
            guard let option = visibleOptions.first(where: { $0.name == name }) else {
                let names = visibleOptions.map(\.name) + ["help"] + (chain[0].version == nil ? [] : ["version"])
                fail("unknown option '\(display)'" + Suggestion.text(for: name, among: names, prefix: "--"))
                return
            }
            consume(option, display: display, inline: inline, arguments: arguments, index: &index)
        }

        private mutating func consume(
            _ option: OptionSpec, display: String, inline: String?, arguments: [String], index: inout Int
        ) {
            if option.kind == .flag {
                if inline != nil { fail("option '\(display)' takes no value") }
                givenFlags.insert(option.name)
                return
            }
            let value: String
            if let inline {
                value = inline
            } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                value = arguments[index]
                index += 1
            } else {
                fail("missing value for '\(display)'")
                return
            }
            if let problem = option.type.problem(with: value) {
                fail("invalid value '\(value)' for '\(display)': \(problem)")
            } else if option.kind == .value, given[option.name] != nil {
                fail("option '\(display)' given more than once")
            } else {
                given[option.name, default: []].append(value)
            }
        }

        func usageError(_ reason: String) -> UsageError {
            UsageError(
                reason: reason, usage: HelpText.usage(for: chain),
                helpHint: chain.map(\.name).joined(separator: " ") + " --help")
        }

        func usageFailure() -> Result<Invocation, UsageError> { .failure(usageError(failure ?? "")) }

        func finish(environment: [String: String]) -> Result<Invocation, UsageError> {
            var resolved = Resolved()
            var failure = self.failure
            if failure == nil, !command.subcommands.isEmpty {
                failure = "missing subcommand (one of: \(command.subcommands.map(\.name).joined(separator: ", ")))"
            }
            if failure == nil { failure = resolved.assignPositionals(rawPositionals, to: command.positionals) }
            for option in visibleOptions where failure == nil {
                failure = resolved.resolve(
                    option, given: given[option.name], flagGiven: givenFlags.contains(option.name),
                    environment: environment)
            }
            if let failure { return .failure(usageError(failure)) }
            return .success(
                .run(
                    ParsedCommand(
                        path: chain.dropFirst().map(\.name), values: resolved.values, flags: resolved.flags,
                        positionals: resolved.positionals, sources: resolved.sources)))
        }
    }

    /// Final values; each step returns a failure reason or nil.
    private struct Resolved {
        var values: [String: [String]] = [:]
        var flags: Set<String> = []
        var positionals: [String: [String]] = [:]
        var sources: [String: ValueSource] = [:]

        mutating func assignPositionals(_ raw: [String], to specs: [PositionalSpec]) -> String? {
            var remaining = raw[...]
            for spec in specs {
                let taken = spec.isRepeating ? Array(remaining) : Array(remaining.prefix(1))
                remaining = remaining.dropFirst(taken.count)
                if taken.isEmpty {
                    if spec.isOptional { continue }
                    return "missing argument <\(spec.name)>"
                }
                if let bad = taken.first(where: { spec.type.problem(with: $0) != nil }) {
                    return "invalid value '\(bad)' for <\(spec.name)>: \(spec.type.problem(with: bad)!)"
                }
                positionals[spec.name] = taken
            }
            return remaining.first.map { "unexpected argument '\($0)'" }
        }

        mutating func resolve(
            _ option: OptionSpec, given: [String]?, flagGiven: Bool, environment: [String: String]
        )
            -> String?
        {
            let display = "--\(option.name)"
            if flagGiven || given != nil {
                sources[option.name] = .commandLine
                if flagGiven { flags.insert(option.name) } else { values[option.name] = given }
                return nil
            }
            if let variable = option.environment, let text = environment[variable], !text.isEmpty {
                sources[option.name] = .environment(variable)
                return fromEnvironment(option, text: text, variable: variable, display: display)
            }
            if !option.defaultValues.isEmpty {
                sources[option.name] = .defaultValue
                values[option.name] = option.defaultValues
                return nil
            }
            return option.isRequired ? "missing option '\(display)'" : nil
        }

        private mutating func fromEnvironment(
            _ option: OptionSpec, text: String, variable: String, display: String
        )
            -> String?
        {
            if option.kind == .flag {
                switch text.lowercased() {
                case "1", "true", "yes": flags.insert(option.name)
                case "0", "false", "no": break
                default:
                    return "invalid value '\(text)' for '\(display)' (from \(variable)): "
                        + "expected 1, true, yes, 0, false or no"
                }
                return nil
            }
            let parts =
                option.kind == .repeatable
                ? text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                : [text]
            for part in parts {
                if let problem = option.type.problem(with: part) {
                    return "invalid value '\(part)' for '\(display)' (from \(variable)): \(problem)"
                }
            }
            values[option.name] = parts
            return nil
        }
    }
}

/// "Did you mean …?" for a mistyped name: the closest name within two edits.
enum Suggestion {
    static func text(for typed: String, among names: [String], prefix: String) -> String {
        let scored = names.map { (name: $0, distance: editDistance(typed, $0)) }.filter { $0.distance <= 2 }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return "" }
        return " (did you mean '\(prefix)\(best.name)'?)"
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = Swift.min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
