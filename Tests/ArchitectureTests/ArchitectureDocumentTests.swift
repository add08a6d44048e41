import Foundation
import Testing

/// docs/architecture.md says what each target is and what it depends on; this keeps it the
/// truth: every target of Package.swift is in its tables with exactly its dependencies, and
/// every test target with its kind (the unit ones are those Package.swift lists under "Unit
/// suites", which `make test-unit` runs).
@Suite struct ArchitectureDocumentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Target: Equatable, CustomStringConvertible {
        var kind: String
        var name: String
        var dependencies: Set<String>
        var description: String { "\(kind) \(name) → \(dependencies.sorted())" }
    }

    /// The targets of a manifest: each `.target(…)`, `.testTarget(…)`, `.executableTarget(…)`,
    /// `.systemLibrary(…)` and `.plugin(…)` call, with the names in its `dependencies` and
    /// `plugins` lists.
    static func targets(manifest: String) -> [Target] {
        let text = Array(manifest.utf8)
        var out: [Target] = []
        for kind in ["target", "testTarget", "executableTarget", "systemLibrary", "plugin"] {
            let opener = Array(".\(kind)(".utf8)
            var i = 0
            while i + opener.count <= text.count {
                guard text[i..<(i + opener.count)].elementsEqual(opener) else {
                    i += 1
                    continue
                }
                var depth = 1, j = i + opener.count
                while j < text.count, depth > 0 {
                    if text[j] == UInt8(ascii: "(") { depth += 1 }
                    if text[j] == UInt8(ascii: ")") { depth -= 1 }
                    j += 1
                }
                let body = String(decoding: text[(i + opener.count)..<(j - 1)], as: UTF8.self)
                if let name = firstQuoted(after: "name:", in: body) {
                    let names = ["dependencies:", "plugins:"].flatMap { quotedList(after: $0, in: body) }
                    out.append(Target(kind: kind, name: name, dependencies: Set(names)))
                }
                i = j
            }
        }
        return out
    }

    static func firstQuoted(after key: String, in text: String) -> String? {
        guard let range = text.range(of: key) else { return nil }
        let rest = text[range.upperBound...]
        guard let open = rest.firstIndex(of: "\"") else { return nil }
        let afterOpen = rest[rest.index(after: open)...]
        return afterOpen.firstIndex(of: "\"").map { String(afterOpen[..<$0]) }
    }

    static func quotedList(after key: String, in text: String) -> [String] {
        guard let range = text.range(of: key), let open = text[range.upperBound...].firstIndex(of: "["),
            let close = text[open...].firstIndex(of: "]")
        else { return [] }
        return text[open..<close].split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .compactMap { $0.offset % 2 == 1 ? String($0.element) : nil }
    }

    /// The rows of a Markdown table whose first cell is a backticked name: name → the other cells
    /// (the table of `make` commands is not one of targets).
    static func rows(_ markdown: Substring) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for line in markdown.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = cells.first, first.hasPrefix("`"), first.hasSuffix("`"), !first.hasPrefix("`make ") else {
                continue
            }
            out[String(first.dropFirst().dropLast())] = Array(cells.dropFirst())
        }
        return out
    }

    /// "`A`, `B`" → {A, B}; "—" → {}.
    static func names(_ cell: String) -> Set<String> {
        Set(
            cell.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }.filter {
                !$0.isEmpty && $0 != "—"
            })
    }

    static func section(_ document: String, _ heading: String) throws -> Substring {
        let start = try #require(
            document.range(of: "\n## \(heading)\n"), "docs/architecture.md has no section \(heading)")
        let rest = document[start.upperBound...]
        return rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
    }

    @Test func theDocumentNamesEveryTargetWithItsDependencies() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let document = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let targets = Self.targets(manifest: manifest)
        #expect(targets.count > 20, "Package.swift read as \(targets)")

        let modules = Self.rows(try Self.section(document, "Modules"))
        let tests = Self.rows(try Self.section(document, "Tests"))
        for target in targets {
            let row = target.kind == "testTarget" ? tests[target.name] : modules[target.name]
            guard let row else {
                Issue.record("docs/architecture.md does not list \(target.name)")
                continue
            }
            let cell = target.kind == "testTarget" ? row.dropFirst().first : row.first
            #expect(
                Self.names(cell ?? "") == target.dependencies, "\(target.name): the document says \(cell ?? "nothing")")
        }
        let declared = Set(targets.map(\.name))
        #expect(Set(modules.keys).subtracting(declared).isEmpty, "listed but not in Package.swift")
        #expect(Set(tests.keys).subtracting(declared).isEmpty, "listed but not in Package.swift")
    }

    @Test func theUnitTargetsAreTheOnesMakeTestUnitRuns() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let document = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        // scripts/test.sh --unit takes the test targets between these two comments.
        let start = try #require(manifest.range(of: "Unit suites"))
        let end = try #require(manifest.range(of: "Integration suites"))
        let unit = Set(Self.targets(manifest: String(manifest[start.upperBound..<end.lowerBound])).map(\.name))
        #expect(unit.contains("PushLedgerSupportTests"))
        let tests = Self.rows(try Self.section(document, "Tests"))
        #expect(tests.values.contains { $0.first == "integration" })
        for (name, cells) in tests {
            #expect((cells.first == "unit") == unit.contains(name), "\(name) is \(cells.first ?? "?") in the document")
        }
    }

    @Test func theManifestReaderSeesDependenciesAndPlugins() {
        let targets = Self.targets(
            manifest: """
                .target(name: "A"), .target(name: "B", dependencies: ["A", "C"]),
                .executableTarget(
                    name: "x",
                    dependencies: ["B"],
                    plugins: ["P"]
                ), .plugin(name: "P", capability: .buildTool())
                """)
        #expect(
            targets.map(\.description).sorted() == [
                "executableTarget x → [\"B\", \"P\"]", "plugin P → []", "target A → []", "target B → [\"A\", \"C\"]",
            ])
    }
}
