/// `--help` text and usage lines, generated from the specs so they can't drift from the parser.
enum HelpText {
    /// Help for the last command of `chain` (root first).
    static func help(for chain: [CommandSpec]) -> String {
        let command = chain[chain.count - 1]
        var own = command.options.map(optionRow)
        own.append(("-h, --help", "Show help for this command."))
        if chain.count == 1, command.version != nil { own.append(("--version", "Show the version.")) }
        let inherited = chain.dropLast().reversed().flatMap(\.options).filter { option in
            !command.options.contains { $0.name == option.name }
        }
        let tables = [
            ("ARGUMENTS:", command.positionals.map { (positionalWord($0), $0.help) }),
            ("OPTIONS:", own),
            ("GLOBAL OPTIONS:", inherited.map(optionRow)),
            ("SUBCOMMANDS:", command.subcommands.map { ($0.name, $0.summary) }),
        ].filter { !$0.1.isEmpty }
        // One column for the whole page, so the sections line up.
        let column = min(tables.flatMap(\.1).map(\.0.count).max() ?? 0, 28) + 4

        var sections = [command.summary, usage(for: chain)]
        if let discussion = command.discussion {
            sections.append(
                discussion.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { wrap(String($0), width: width).joined(separator: "\n") }.joined(separator: "\n"))
        }
        sections += tables.map { table($0.0, $0.1, column: column) }
        if !command.subcommands.isEmpty {
            sections.append(
                "See '\(chain.map(\.name).joined(separator: " ")) <subcommand> --help' for a subcommand's help.")
        }
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// `Usage: pushledger report silent-loss --app <value> [<options>] <window>`.
    static func usage(for chain: [CommandSpec]) -> String {
        let command = chain[chain.count - 1]
        var words = ["Usage:"] + chain.map(\.name)
        let options = chain.flatMap(\.options)
        words += options.filter(\.isRequired).map { "--\($0.name) <\(placeholder($0))>" }
        if options.contains(where: { !$0.isRequired }) { words.append("[<options>]") }
        if !command.subcommands.isEmpty { words.append("<subcommand>") }
        words += command.positionals.map(positionalWord)
        return words.joined(separator: " ")
    }

    private static func positionalWord(_ positional: PositionalSpec) -> String {
        let word = "<\(positional.name)>" + (positional.isRepeating ? " ..." : "")
        return positional.isOptional ? "[\(word)]" : word
    }

    /// Choices longer than this are listed in the option's text, not in its placeholder.
    static let longestInlineChoices = 40

    private static func placeholder(_ option: OptionSpec) -> String {
        if let placeholder = option.placeholder { return placeholder }
        if case .choice = option.type, option.type.placeholder.count > longestInlineChoices { return "choice" }
        return option.type.placeholder
    }

    private static func optionRow(_ option: OptionSpec) -> (String, String) {
        var left = option.short.map { "-\($0), " } ?? ""
        left += "--\(option.name)"
        if option.kind != .flag { left += " <\(placeholder(option))>" }
        var notes: [String] = []
        if case .choice(let words) = option.type, placeholder(option) == "choice" {
            notes.append("one of: " + words.joined(separator: ", "))
        }
        if option.kind == .repeatable { notes.append("repeatable") }
        if option.isRequired { notes.append("required") }
        if !option.defaultValues.isEmpty { notes.append("default: \(option.defaultValues.joined(separator: ", "))") }
        if let variable = option.environment { notes.append("env: \(variable)") }
        return (left, notes.isEmpty ? option.help : "\(option.help) (\(notes.joined(separator: "; ")))")
    }

    /// Two aligned columns; a left entry too long for the column puts its text on the next line,
    /// and text longer than the line continues under itself.
    private static func table(_ title: String, _ rows: [(String, String)], column: Int) -> String {
        let indent = String(repeating: " ", count: column)
        let lines = rows.map { left, right in
            let entry = "  " + left
            let text = wrap(right, width: width - column).joined(separator: "\n" + indent)
            if entry.count + 2 > column { return entry + "\n" + indent + text }
            return entry + String(repeating: " ", count: column - entry.count) + text
        }
        return ([title] + lines).joined(separator: "\n")
    }

    /// Help fits the terminal width the tables use.
    static let width = 120

    /// `text` in lines of at most `width` characters, broken between words (a longer word
    /// stands alone on its line).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        return lines + [line]
    }
}
