import Foundation
import Postgres
import TestSupport
import Testing

/// docs/rollups.md "The flow" draws which function writes which table from what; the engine's
/// SQL files say the same in each function's header. These tests keep the drawing and the
/// files honest against a migrated database and against each other.
@Suite struct RollupFlowTests {
    static let root = TestDatabase.repositoryRoot

    /// The text block under "## The flow" of docs/rollups.md.
    static func drawing() throws -> String {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/rollups.md"), encoding: .utf8)
        guard let section = doc.range(of: "## The flow"),
            let open = doc.range(of: "```text\n", range: section.upperBound..<doc.endIndex),
            let close = doc.range(of: "\n```", range: open.upperBound..<doc.endIndex)
        else { throw Failure("docs/rollups.md has no drawing under \"## The flow\"") }
        return String(doc[open.upperBound..<close.lowerBound])
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func matches(_ pattern: String, in text: String) throws -> Set<String> {
        let regex = try NSRegularExpression(pattern: pattern)
        return Set(
            regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                Range($0.range(at: 1), in: text).map { String(text[$0]) }
            })
    }

    /// The engine's definition files: (path below sql/, text).
    static func engineFiles() throws -> [(name: String, text: String)] {
        let folder = root.appendingPathComponent("sql/engine")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
            .map {
                ("engine/" + $0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8))
            }
    }

    /// Functions are drawn `name()`, tables `[name]`: each must exist after `migrate` (the working
    /// tables once pushledger_rollup_work_tables has made them), and every working table is drawn.
    @Test func theDrawingNamesOnlyFunctionsAndTablesThatExist() throws {
        let drawing = try Self.drawing()
        let functions = try Self.matches(#"\b(pushledger_[a-z0-9_]+)\(\)"#, in: drawing)
        let tables = try Self.matches(#"\[([a-z0-9_]+)\]"#, in: drawing)
        #expect(
            functions.count >= 25 && tables.count >= 25,
            "the drawing names \(functions.count) functions, \(tables.count) tables")
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "flow"))
        try connection.transaction { c in
            _ = try c.query("select pushledger_rollup_work_tables()")
            for function in functions.sorted() {
                let found = try c.query("select count(*)::int as n from pg_proc where proname = \(function)")
                #expect(
                    try found[0].decode("n", as: Int.self) > 0,
                    "docs/rollups.md draws \(function)(), which does not exist")
            }
            for table in tables.sorted() {
                let found = try c.query("select to_regclass(\(table)) is not null as found")
                #expect(
                    try found[0].decode("found", as: Bool.self),
                    "docs/rollups.md draws [\(table)], which does not exist")
            }
            let working = try c.query(
                "select relname::text as name from pg_class where relnamespace = pg_my_temp_schema() and relkind = 'r'")
            let names = Set(try working.map { try $0.decode("name", as: String.self) })
            #expect(names.count >= 10)
            #expect(
                names.subtracting(tables).isEmpty, "working tables not drawn: \(names.subtracting(tables).sorted())")
        }
    }

    /// The drawing's PASS block is the entry point's body: the functions of its numbered steps
    /// (a step's line and the lines under it, with their --full alternatives) are the ones the
    /// pass calls, in that order, through pushledger_rollup_pass_start, pushledger_rollup_pass_prompts,
    /// pushledger_rollup_pass and pushledger_rollup_pass_end, defined in that order.
    @Test func thePassIsDrawnAsTheEntryPointRunsIt() throws {
        let drawing = try Self.drawing()
        guard let start = drawing.range(of: "PASS  pushledger_rollup_pass()"),
            let end = drawing.range(of: "\nREFRESH ", range: start.upperBound..<drawing.endIndex)
        else { throw Failure("docs/rollups.md draws no PASS block before REFRESH") }
        var steps: [String] = []
        for line in drawing[start.upperBound..<end.lowerBound].components(separatedBy: "\n") {
            if line.range(of: #"^  \d\. "#, options: .regularExpression) != nil {
                steps.append(line)
            } else if !steps.isEmpty, line.hasPrefix("   ") {
                steps[steps.count - 1] += "\n" + line
            }
        }
        let drawn = try steps.map { try Self.matches(#"\b(pushledger_[a-z0-9_]+)\(\)"#, in: $0) }
        let sql = try String(contentsOf: Self.root.appendingPathComponent("sql/engine/pass.sql"), encoding: .utf8)
        let parts = ["pushledger_rollup_pass_start(", "pushledger_rollup_pass(", "pushledger_rollup_pass_end("]
        let starts = parts.map { sql.range(of: "create or replace function " + $0)?.lowerBound }
        guard let first = starts[0], let second = starts[1], let third = starts[2], first < second, second < third
        else { throw Failure("sql/engine/pass.sql does not define \(parts) in that order") }
        // The three bodies, without their own names (the pass calling its halves).
        let code = sql[first...].components(separatedBy: "\n").filter {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return !line.hasPrefix("--") && !line.hasPrefix("create or replace function")
        }.map {
            $0.replacingOccurrences(
                of: #"pushledger_rollup_pass_(start|prompts|end)\("#, with: "", options: .regularExpression)
        }
        // Each call's step: the first drawn step that names the function.
        var called: [Int] = []
        for line in code {
            for name in try Self.matches(#"\b(pushledger_[a-z0-9_]+)\("#, in: line).sorted() {
                guard let step = drawn.firstIndex(where: { $0.contains(name) }) else {
                    Issue.record("pushledger_rollup_pass calls \(name), which the PASS block does not draw")
                    continue
                }
                called.append(step)
            }
        }
        #expect(drawn.count == 5 && drawn.allSatisfy { !$0.isEmpty }, "\(drawn)")
        #expect(called == called.sorted(), "the pass calls its steps in another order than drawn: \(called)")
        #expect(Set(called) == Set(drawn.indices), "steps drawn but not called: \(called)")
        let callees = Set(
            try code.flatMap { try Self.matches(#"\b(pushledger_[a-z0-9_]+)\("#, in: $0) })
        #expect(callees == Set(drawn.flatMap { $0 }), "drawn \(drawn), called \(callees.sorted())")
    }

    /// The second connection's rows go from `rollup_second_rows` into `rollup_new` by position:
    /// the two tables have send_outcomes' columns, in its order and of its types.
    @Test func theSecondConnectionsTableHasTheColumnsOfSendOutcomes() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "flow"))
        func columns(_ table: String) throws -> [String] {
            try connection.query(
                """
                select a.attname::text || ' ' || format_type(a.atttypid, a.atttypmod) as col
                  from pg_attribute a
                 where a.attrelid = \(table)::regclass and a.attnum > 0 and not a.attisdropped
                 order by a.attnum
                """
            ).map { try $0.decode("col") }
        }
        let outcomes = try columns("send_outcomes")
        #expect(outcomes.count > 20)
        #expect(try columns("rollup_second_rows") == outcomes)
    }

    /// The answer the drawing gives to "which function writes send_outcomes?" holds: only the
    /// functions of sql/engine/send_outcomes.sql write it.
    @Test func sendOutcomesIsWrittenByOneFile() throws {
        let writes = try NSRegularExpression(
            pattern: #"\b(insert\s+into|delete\s+from|truncate|update)\s+send_outcomes\b"#, options: [.caseInsensitive])
        let folder = Self.root.appendingPathComponent("sql")
        var writers: Set<String> = []
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        for path in files where path.hasSuffix(".sql") && !path.hasPrefix("migrations/") {
            let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
            if writes.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil { writers.insert(path) }
        }
        #expect(writers == ["engine/send_outcomes.sql"])
    }

    /// Every function of sql/engine says in its header comment what it reads and writes.
    @Test func everyEngineFunctionSaysWhatItReadsAndWrites() throws {
        let create = try NSRegularExpression(pattern: #"^create (?:or replace )?function (\w+)"#)
        var checked = 0
        for file in try Self.engineFiles() {
            let lines = file.text.components(separatedBy: "\n")
            for (i, line) in lines.enumerated() {
                guard let m = create.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                    let nameRange = Range(m.range(at: 1), in: line)
                else { continue }
                var j = i - 1
                // Drops, and the opening of a definition built from the counter catalog, stand between.
                while j >= 0 && (lines[j].hasPrefix("drop ") || lines[j].hasPrefix("select pushledger_define(")) {
                    j -= 1
                }
                var header: [String] = []
                while j >= 0 && lines[j].hasPrefix("--") {
                    header.append(lines[j])
                    j -= 1
                }
                #expect(
                    header.contains { $0.hasPrefix("-- Reads ") },
                    "\(file.name): \(line[nameRange]) has no \"-- Reads …; writes …\" line in its header")
                checked += 1
            }
        }
        #expect(checked >= 60)
    }

    /// No SQL text is assembled in the engine: dynamic SQL only where DDL needs it, in two files.
    @Test func theEngineAssemblesNoSQL() throws {
        let dynamic = try NSRegularExpression(pattern: #"\bexecute\s+(?!function\b)|\breplace\s*\(|\bformat\s*\("#)
        var found: Set<String> = []
        for file in try Self.engineFiles() {
            let code = file.text.components(separatedBy: "\n").filter {
                !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--")
            }
            .joined(separator: "\n")
            if dynamic.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                found.insert(file.name)
            }
        }
        // bulk_load.sql drops and builds indexes; outcome_counters.sql writes out the counter
        // catalog's lists into the definitions built from it (pushledger_define).
        #expect(found == ["engine/bulk_load.sql", "engine/outcome_counters.sql"])
    }
}
