import CommandLineParsing
import Foundation
import Testing

@testable import pushledger

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// A `pushledger …` command line found in the documentation.
struct Example: CustomStringConvertible {
    var file: String
    var line: Int
    var text: String
    var description: String { "\(file):\(line): pushledger \(text)" }

    /// The words as a shell splits them, with the documents' synopsis notation read as a user
    /// would type it: `[--x Y]` gives its words, `a|b|c` (`a\|b` in a table) the first choice,
    /// a trailing `…` (more of the same) and a comment are dropped, `<a placeholder>` is one word.
    var arguments: [String] {
        var text = self.text.replacingOccurrences(of: "\\|", with: "|")
        if let comment = text.range(of: " # ") ?? text.range(of: "  #") { text = String(text[..<comment.lowerBound]) }
        text = text.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix("&") { text.removeLast() }
        text = text.replacingOccurrences(of: "]…", with: "]").replacingOccurrences(of: "[", with: "")
            .replacingOccurrences(of: "]", with: "")
        var words: [String] = []
        var word = ""
        var quote: Character?
        var inPlaceholder = false
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "<" {
                inPlaceholder = true
                word.append(character)
            } else if character == ">" {
                inPlaceholder = false
                word.append(character)
            } else if character == " " && !inPlaceholder {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                word.append(character)
            }
        }
        if !word.isEmpty { words.append(word) }
        if words.last == "…" { words.removeLast() }
        return words.map { $0.contains("|") && !$0.hasPrefix("<") ? String($0.split(separator: "|")[0]) : $0 }
    }

    /// Examples in fenced code blocks (continuation lines joined) and in inline code spans.
    static func all() throws -> [Example] {
        let files =
            ["README.md"]
            + (FileManager.default.enumerator(atPath: root.appendingPathComponent("docs").path)?
                .compactMap { $0 as? String }.filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }.sorted() ?? [])
        var examples: [Example] = []
        for file in files {
            let lines = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                .components(separatedBy: "\n")
            var inBlock = false
            var index = 0
            while index < lines.count {
                let line = lines[index].trimmingCharacters(in: .whitespaces)
                let number = index + 1
                index += 1
                if line.hasPrefix("```") {
                    inBlock.toggle()
                    continue
                }
                if inBlock {
                    guard var command = Self.command(in: line) else { continue }
                    while command.hasSuffix("\\"), index < lines.count {
                        command = String(command.dropLast()) + " " + lines[index].trimmingCharacters(in: .whitespaces)
                        index += 1
                    }
                    examples.append(Example(file: file, line: number, text: command))
                } else {
                    for span in line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                    where span.offset % 2 == 1 && span.element.hasPrefix("pushledger ") {
                        examples.append(Example(file: file, line: number, text: String(span.element.dropFirst(11))))
                    }
                }
            }
        }
        return examples
    }

    /// The words after `pushledger` on a shell line (after a prompt, variable assignments or a path).
    private static func command(in line: String) -> String? {
        var words = line.split(separator: " ", omittingEmptySubsequences: true)[...]
        if words.first == "$" { words = words.dropFirst() }
        while let first = words.first, first.contains("="), !first.hasPrefix("-") { words = words.dropFirst() }
        guard let program = words.first, program == "pushledger" || program.hasSuffix("/pushledger") else { return nil }
        let start = line.range(of: String(program))!.upperBound
        return String(line[start...]).trimmingCharacters(in: .whitespaces)
    }
}

@Suite("Every command and documented example")
struct CommandTreeTests {
    static let paths = CommandLineParser.commandPaths(root: PushLedgerCommand.self)

    @Test func everyCommandHasHelpThatFitsTheTerminal() throws {
        #expect(Self.paths.count > 30)
        for path in Self.paths {
            let help = try #require(CommandLineParser.help(root: PushLedgerCommand.self, path: path), "\(path)")
            #expect(help.contains("Usage: " + (["pushledger"] + path).joined(separator: " ")), "\(path)")
            #expect(help.contains("-h, --help"))
            for line in help.split(separator: "\n") {
                #expect(line.count <= 120, "\(path): \(line.count) columns: \(line)")
            }
        }
    }

    @Test func everyOptionIsDeclaredOnce() {
        for path in Self.paths {
            let names = CommandLineParser.declaredNames(root: PushLedgerCommand.self, path: path)
            #expect(Set(names).count == names.count, "\(path) declares one of \(names) twice")
        }
    }

    @Test func everyDocumentedExampleParses() throws {
        let examples = try Example.all()
        #expect(examples.count > 30, "found \(examples.count) examples")
        let groups = Set(Self.paths)
        for example in examples {
            let arguments = example.arguments
            // A command named in prose (`pushledger report`) is fine when it exists.
            if groups.contains(arguments) { continue }
            // So is an option named in prose (`pushledger serve --listen`) when that command declares it;
            // --help and --version are the parser's own and go through it below.
            if let option = arguments.last, option.hasPrefix("--"), option != "--help", option != "--version",
                groups.contains(Array(arguments.dropLast()))
            {
                let declared = CommandLineParser.declaredNames(
                    root: PushLedgerCommand.self, path: Array(arguments.dropLast()))
                #expect(declared.contains(option), "\(example): no such option")
                continue
            }
            switch CommandLineParser.parse(arguments, root: PushLedgerCommand.self, environment: [:]) {
            case .success: break
            case .failure(let error): Issue.record("\(example): \(error.reason)")
            }
        }
    }

    @Test func theExampleReaderReadsSynopses() {
        let synopsis = Example(file: "x", line: 1, text: "keys list [--app APP] [--format table|json|csv]   # state")
        #expect(synopsis.arguments == ["keys", "list", "--app", "APP", "--format", "table"])
        let placeholder = Example(file: "x", line: 1, text: "tail --app <app id> --installation \"a b\" &")
        #expect(placeholder.arguments == ["tail", "--app", "<app id>", "--installation", "a b"])
        let repeated = Example(file: "x", line: 1, text: "links check --app a [--domain d]… [--apple-cdn]")
        #expect(repeated.arguments == ["links", "check", "--app", "a", "--domain", "d", "--apple-cdn"])
        let table = Example(file: "x", line: 1, text: "alert check\\|list …")
        #expect(table.arguments == ["alert", "check"])
    }

    @Test func aBadExampleFails() {
        // The check above can fail: a misspelled option or a value of the wrong type does not parse.
        for words in [["report", "weekly", "--app", "a", "--weak", "2026-W48"], ["retention", "--keep", "DURATION"]] {
            guard case .failure(let error) = CommandLineParser.parse(words, root: PushLedgerCommand.self) else {
                Issue.record("\(words) parsed")
                continue
            }
            #expect(error.exitCode == 64)
        }
    }
}
