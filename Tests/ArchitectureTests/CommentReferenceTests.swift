import Foundation
import Testing

/// No comment names something that does not exist. In the `//` and `///` comments of
/// Package.swift, Sources, Tests and Plugins, every backticked type (CamelCase, with its members),
/// call (camelCase, CamelCase or pushledger_ SQL names followed by a parenthesis), SQL name
/// (pushledger_…) and project file (a path with a folder, or a .swift, .sql or .sh name) is looked
/// up in the project: its code with the comments left out, sql/, docs/, scripts/, the Android
/// sources and the deployment files. Conservative on purpose: lower-case words, commands,
/// options, C names and other languages' one-word calls are not checked.
@Suite struct CommentReferenceTests {
    static let root = ArchitectureDocumentTests.root

    /// A comment line: where it is and its text.
    struct Comment {
        var file: String
        var line: Int
        var text: String
    }

    /// What a backticked span claims exists.
    enum Claim: Equatable {
        case names([String])
        case file(String)
    }

    static let space = UInt8(ascii: " "), slash = UInt8(ascii: "/"), quote = UInt8(ascii: "\"")

    /// Where the comment of a Swift line starts, if it has one: a line that starts with `//` is
    /// all comment; otherwise the comment starts at two spaces and `//` outside a string literal.
    static func commentStart(_ line: ArraySlice<UInt8>) -> Int? {
        guard let first = line.firstIndex(where: { $0 != space }) else { return nil }
        if line[first...].starts(with: [slash, slash]) { return first }
        var quotes = 0
        var i = line.startIndex
        while i + 3 < line.endIndex {
            if line[i] == quote { quotes += 1 }
            if quotes % 2 == 0, line[i] == space, line[i + 1] == space, line[i + 2] == slash, line[i + 3] == slash {
                return i + 2
            }
            i += 1
        }
        return nil
    }

    static func isWordByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// The identifiers of some text.
    static func addWords(of bytes: ArraySlice<UInt8>, to words: inout Set<String>) {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard isWordByte(bytes[i]) else {
                i += 1
                continue
            }
            let start = i
            while i < bytes.endIndex, isWordByte(bytes[i]) { i += 1 }
            if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[start]) {
                words.insert(String(decoding: bytes[start..<i], as: UTF8.self))
            }
        }
    }

    static func isIdentifier(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return text.utf8.allSatisfy(isWordByte)
    }

    static func isCapitalized(_ name: Substring) -> Bool {
        name.first?.isUppercase == true && name.contains(where: \.isLowercase) && !name.contains("_")
    }

    static let fileExtensions: Set<Substring> = [
        "swift", "sql", "md", "sh", "json", "yml", "yaml", "java", "html", "txt",
    ]
    static let sourceExtensions: Set<Substring> = ["swift", "sql", "sh"]

    /// The claim of one backticked span, or nil for a span this check leaves alone.
    static func claim(_ span: Substring) -> Claim? {
        if let dot = span.lastIndex(of: "."), case let ext = span[span.index(after: dot)...],
            fileExtensions.contains(ext), span.first != ".", span.first != "/",
            span.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_./-".contains($0)) })
        {
            return span.contains("/") || sourceExtensions.contains(ext) ? .file(String(span)) : nil
        }
        if let open = span.firstIndex(of: "(") {
            let parts = span[..<open].split(separator: ".", omittingEmptySubsequences: false)
            guard parts.allSatisfy(isIdentifier), let called = parts.last else { return nil }
            var names = parts.dropLast().filter(isCapitalized).map(String.init)
            let camel = called.first?.isLowercase == true && called.contains(where: \.isUppercase)
            if camel || isCapitalized(called) || called.hasPrefix("pushledger_") { names.append(String(called)) }
            return names.isEmpty ? nil : .names(names)
        }
        let parts = span.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.allSatisfy(isIdentifier), let first = parts.first else { return nil }
        if first.hasPrefix("pushledger_"), parts.count == 1 { return .names([String(first)]) }
        guard isCapitalized(first) else { return nil }
        return .names(parts.map(String.init))
    }

    /// Each span of the comments whose claim is not met, as "file:line: `span` …".
    static func stale(_ comments: [Comment], words: Set<String>, files: Set<String>) -> [String] {
        var out: [String] = []
        for comment in comments {
            // DocC's double-backtick symbol links count as single backticks.
            let text = comment.text.replacingOccurrences(of: "``", with: "`")
            let pieces = text.split(separator: "`", omittingEmptySubsequences: false)
            for (index, span) in pieces.enumerated() where index % 2 == 1 && index < pieces.count - 1 {
                switch claim(span) {
                case .names(let names):
                    let missing = names.filter { !words.contains($0) }
                    if !missing.isEmpty {
                        out.append(
                            "\(comment.file):\(comment.line): `\(span)` names \(missing.joined(separator: ", "))")
                    }
                case .file(let path):
                    let directory = (comment.file as NSString).deletingLastPathComponent
                    if !files.contains(path), !files.contains((directory as NSString).appendingPathComponent(path)),
                        !files.contains(where: { $0.hasSuffix("/" + path) })
                    {
                        out.append("\(comment.file):\(comment.line): `\(span)` is no file of the project")
                    }
                case nil: break
                }
            }
        }
        return out
    }

    /// The comments of a Swift file, and the words of its code into `words`.
    static func read(swift bytes: [UInt8], file: String, words: inout Set<String>) -> [Comment] {
        var comments: [Comment] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard let start = commentStart(line) else {
                addWords(of: line, to: &words)
                continue
            }
            addWords(of: line[..<start], to: &words)
            comments.append(
                Comment(file: file, line: index + 1, text: String(decoding: line[start...], as: UTF8.self)))
        }
        return comments
    }

    /// The project's files, relative to the root, without hidden folders and build output.
    static func projectFiles() -> [String] {
        let base = root.standardizedFileURL.path + "/"
        guard
            let walk = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var out: [String] = []
        for case let url as URL in walk {
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base) else { continue }
            let relative = String(path.dropFirst(base.count))
            if relative.hasSuffix("/build") {
                walk.skipDescendants()
                continue
            }
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { out.append(relative) }
        }
        return out
    }

    @Test func everyNameInACommentExists() throws {
        let files = Self.projectFiles()
        #expect(files.contains("Package.swift"))
        var words = Set<String>()
        var comments: [Comment] = []
        for file in files {
            let isSwift =
                file.hasSuffix(".swift")
                && ["Sources/", "Tests/", "Plugins/", "Package.swift"].contains { file.hasPrefix($0) }
            let isReference =
                ["sql/", "docs/", "scripts/", "android/", "deploy/", "prometheus/", "dashboards/"].contains {
                    file.hasPrefix($0)
                } || file == "README.md" || file == "Makefile"
            guard isSwift || isReference,
                let data = FileManager.default.contents(atPath: Self.root.appendingPathComponent(file).path)
            else { continue }
            let bytes = [UInt8](data)
            if isSwift {
                comments += Self.read(swift: bytes, file: file, words: &words)
            } else if file.hasSuffix(".sql") {
                // SQL comments are left out as Swift's are.
                for line in bytes.split(separator: UInt8(ascii: "\n")) {
                    let dashes = line.indices.first {
                        line[$0] == UInt8(ascii: "-") && line[$0...].starts(with: [45, 45])
                    }
                    Self.addWords(of: line[..<(dashes ?? line.endIndex)], to: &words)
                }
            } else {
                Self.addWords(of: bytes[...], to: &words)
            }
        }
        #expect(comments.count > 1_000, "comments read: \(comments.count)")
        let stale = Self.stale(comments, words: words, files: Set(files))
        #expect(stale.isEmpty, "\(stale.count) comments name what does not exist:\n\(stale.joined(separator: "\n"))")
    }

    @Test func aNameThatIsNowhereIsFound() {
        // %% stands for the two slashes, so that this file's own scan sees no comment in these lines.
        let source = [
            "%%/ Kept by `Ledger.record(_:)` in ``Journal``, see `docs/sdk.md` and `pushledger_rollup()`.",
            "let x = 1  %% ``Vanished``, `gone.swift`, `lostHelper(x)`, `pushledger_dropped`, `sql/old.sql`",
            #"let url = "https:%%x.test  %% `Inside`"  %% `Ledger`"#,
            "    %% Unchecked: `count(*)`, `limit`, `--format`, `make test`, `GET`, `norm.cdf(x)`, `C_Name`, `a.json`",
        ].joined(separator: "\n").replacingOccurrences(of: "%%", with: "//")
        var words = Set<String>()
        let comments = Self.read(swift: Array(source.utf8), file: "Sources/A/B.swift", words: &words)
        #expect(comments.map(\.line) == [1, 2, 3, 4])
        #expect(words.isSuperset(of: ["let", "x", "url", "https", "Inside"]) && !words.contains("Ledger"))
        let stale = Self.stale(
            comments, words: ["Ledger", "record", "Journal", "pushledger_rollup"],
            files: ["docs/sdk.md", "Sources/A/B.swift"])
        #expect(
            stale == [
                "Sources/A/B.swift:2: `Vanished` names Vanished",
                "Sources/A/B.swift:2: `gone.swift` is no file of the project",
                "Sources/A/B.swift:2: `lostHelper(x)` names lostHelper",
                "Sources/A/B.swift:2: `pushledger_dropped` names pushledger_dropped",
                "Sources/A/B.swift:2: `sql/old.sql` is no file of the project",
            ])
    }
}
