import Foundation

/// The SQL of the `sql/` folder as the migrator reads it: the numbered migrations of
/// `migrations/` and the definition files named by `definitions.list` in their apply order.
public struct MigrationSource: Sendable, Equatable {
    /// One numbered migration of `migrations/` (NNNN_name.sql, e.g. `0001_baseline.sql`): tables,
    /// indexes, types, grants.
    public struct Migration: Sendable, Equatable {
        public let version: Int
        public let name: String
        public let sql: String
        public var fileName: String { String(format: "%04d_%@.sql", version, name) }
    }

    /// One definition file (functions, views, triggers), by its path below `sql/`.
    public struct Definition: Sendable, Equatable {
        public let path: String
        public let sql: String
        /// The texts of the definitions this one is built from (its `-- Built from <path>.` lines,
        /// e.g. the counter catalog), so it is applied again when one of them changes.
        public var builtFrom = ""

        /// What its recorded checksum covers: its text, and those it is built from.
        var source: String { sql + builtFrom }
    }

    public static let definitionsList = "definitions.list"

    /// A definition's line naming a definition it is built from.
    static let builtFromPrefix = "-- Built from "

    public let migrations: [Migration]
    public let definitions: [Definition]

    /// Reads `directory` (the `sql/` folder). Every `.sql` file outside `migrations/` must be
    /// listed in `definitions.list`, so no definition is silently left out.
    public init(directory: URL) throws(Migrator.Failure) {
        migrations = try Self.readMigrations(directory.appendingPathComponent("migrations"))
        definitions = try Self.readDefinitions(directory)
    }

    private static func read(_ url: URL, as name: String) throws(Migrator.Failure) -> String {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { throw .unreadable(name) }
        return text
    }

    private static func readMigrations(_ directory: URL) throws(Migrator.Failure) -> [Migration] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            throw .unreadable(directory.path)
        }
        var found: [Migration] = []
        for name in names.sorted() where name.hasSuffix(".sql") {
            let stem = name.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]),
                stem[..<underscore].count == 4
            else { throw .badFileName(name) }
            let text = try read(directory.appendingPathComponent(name), as: name)
            if found.contains(where: { $0.version == version }) { throw .duplicateVersion(version) }
            found.append(Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: text))
        }
        return found
    }

    /// Meaningful lines of a list file: `#` starts a comment, blank lines are skipped.
    private static func lines(_ text: String) -> [(number: Int, text: String)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, raw in
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces)
            return line.isEmpty ? nil : (index + 1, line)
        }
    }

    private static func readDefinitions(_ directory: URL) throws(Migrator.Failure) -> [Definition] {
        let list = try read(directory.appendingPathComponent(definitionsList), as: definitionsList)
        var found: [Definition] = []
        // Another database's folder (`sql/directory/`) may name a file of the main `sql/` folder
        // as `../path`: a definition both databases need is one file.
        let parentIsSQL = FileManager.default.fileExists(
            atPath: directory.deletingLastPathComponent().appendingPathComponent(definitionsList).path)
        for (number, path) in lines(list) {
            var parts = path.split(separator: "/", omittingEmptySubsequences: false)
            if parentIsSQL, parts.count > 2, parts.first == ".." { parts.removeFirst() }
            guard path.hasSuffix(".sql"), !path.hasPrefix("/"),
                !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
                parts.first != "migrations"
            else { throw .badDefinitionList(line: number, path) }
            if found.contains(where: { $0.path == path }) { throw .badDefinitionList(line: number, path) }
            found.append(Definition(path: path, sql: try read(directory.appendingPathComponent(path), as: path)))
        }
        for index in found.indices {
            for (number, line) in found[index].sql.split(separator: "\n").enumerated()
            where line.hasPrefix(Self.builtFromPrefix) {
                let name = line.dropFirst(Self.builtFromPrefix.count).trimmingCharacters(in: .init(charactersIn: ". "))
                // A file of another database's folder names its sources as the main folder's files do.
                guard let source = found.first(where: { $0.path == name || $0.path == "../" + name }),
                    source.path != found[index].path
                else { throw .badDefinitionList(line: number + 1, "\(found[index].path): \(line)") }
                found[index].builtFrom += source.sql
            }
        }
        let listed = Set(found.map(\.path))
        if let stray = sqlFiles(below: directory).first(where: { !listed.contains($0) }) {
            throw .unlistedDefinition(stray)
        }
        return found
    }

    /// Paths below `directory` of every `.sql` file outside `migrations/`, sorted. A folder
    /// with a `definitions.list` of its own is another database's SQL (`sql/directory/`) and
    /// is left out.
    private static func sqlFiles(below directory: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var paths: [String] = []
        while let path = walker.nextObject() as? String {
            let url = directory.appendingPathComponent(path)
            if path.contains("/") == false, (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true,
                FileManager.default.fileExists(atPath: url.appendingPathComponent(definitionsList).path)
            {
                walker.skipDescendants()
                continue
            }
            if path.hasSuffix(".sql"), !path.hasPrefix("migrations/") { paths.append(path) }
        }
        return paths.sorted()
    }
}
