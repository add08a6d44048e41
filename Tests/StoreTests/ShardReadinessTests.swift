import Foundation
import Postgres
import Testing

/// The schema stays distributable by `app_id` (Citus `create_distributed_table(…, 'app_id')`):
/// read from the catalog of a migrated database, so a new table, index or function that breaks
/// the rule fails here rather than at the first sharded deployment.
@Suite struct ShardReadinessTests {
    let db: StoreDatabase
    init() throws { db = try StoreDatabase() }

    /// Tables that are not split by app: replicated to every node (`create_reference_table`) or
    /// local metadata (the migrator's two tables). `api_keys` is read by key hash before the app
    /// is known; `pushledger_settings` is the deployment's one row of settings;
    /// `rollup_refresh_state` and `prompt_rollup_state` its one row each of the last refresh.
    static let referenceTables: Set<String> = [
        "api_keys", "schema_migrations", "schema_definitions", "pushledger_settings", "rollup_refresh_state",
        "prompt_rollup_state",
    ]

    /// Every ordinary or partitioned (parent) table of the schema, with its columns.
    private func tables() throws -> [String: Set<String>] {
        let rows = try db.connection.query(
            """
            select c.relname, array_to_string(array_agg(a.attname::text), ',') as columns
              from pg_class c join pg_namespace n on n.oid = c.relnamespace
              join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
             where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
             group by c.relname
            """)
        var tables: [String: Set<String>] = [:]
        for row in rows {
            let columns: String = try row.decode("columns")
            tables[try row.decode("relname")] = Set(columns.split(separator: ",").map(String.init))
        }
        return tables
    }

    /// The tables distributed by `app_id`: every table that is not a reference table.
    private func appScopedTables() throws -> Set<String> {
        Set(try tables().keys).subtracting(Self.referenceTables)
    }

    @Test func everyAppScopedTableHasAnAppIDColumn() throws {
        let missing = try tables().filter { !Self.referenceTables.contains($0.key) && !$0.value.contains("app_id") }
            .keys
        #expect(missing.sorted() == [])
    }

    @Test func everyPrimaryKeyAndUniqueIndexIncludesAppID() throws {
        let rows = try db.connection.query(
            """
            select c.relname as table_name, i.relname as index_name
              from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid
              join pg_namespace n on n.oid = c.relnamespace
             where n.nspname = 'public' and x.indisunique and not c.relispartition
               and not exists (select 1 from pg_attribute a
                                where a.attrelid = c.oid and a.attname = 'app_id' and a.attnum = any(x.indkey::int2[]))
             order by 1, 2
            """)
        let violations = try rows.map {
            "\(try $0.decode("table_name", as: String.self)).\(try $0.decode("index_name", as: String.self))"
        }
        .filter { !Self.referenceTables.contains(String($0.prefix { $0 != "." })) }
        #expect(violations == [])
        #expect(try !rows.isEmpty, "api_keys' unique key hash is a reference table's index the query must see")
    }

    @Test func everyUniqueIndexOfAPartitionedTableIncludesThePartitionKey() throws {
        let rows = try db.connection.query(
            """
            select c.relname as table_name, i.relname as index_name,
                   (select count(*) from pg_partitioned_table p where p.partrelid = c.oid) as partitioned
              from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid
              join pg_namespace n on n.oid = c.relnamespace
             where n.nspname = 'public' and x.indisunique and c.relkind = 'p'
               and exists (select 1 from pg_partitioned_table p, unnest(p.partattrs::int2[]) k
                            where p.partrelid = c.oid and not k = any(x.indkey::int2[]))
            """)
        #expect(rows.count == 0)
        let partitioned: Int = try db.value("select count(*) from pg_partitioned_table")
        #expect(partitioned >= 5)
    }

    @Test func everyJoinOfAppScopedTablesInTheSQLFunctionsAndViewsEquatesAppID() throws {
        let rows = try db.connection.query(
            """
            select p.proname as name, p.prosrc as body
              from pg_proc p join pg_language l on l.oid = p.prolang
             where p.pronamespace = 'public'::regnamespace and l.lanname in ('sql', 'plpgsql')
            union all
            select viewname, definition from pg_views where schemaname = 'public'
            """)
        let scoped = try appScopedTables()
        var violations: [String] = [], joins = 0
        for row in rows {
            let findings = JoinCheck.check(try row.decode("body"), appScoped: scoped)
            joins += findings.checked
            violations += findings.violations.map { "\(try! row.decode("name", as: String.self)): \($0)" }
        }
        #expect(violations == [])
        // The scan sees the schema's joins (a broken tokenizer would check none and pass).
        #expect(joins >= 15)
    }

    @Test func theJoinCheckFindsJoinsWithoutAppID() {
        let scoped: Set<String> = ["sends", "notification_receipts", "installations"]
        let bad = """
            select * from notification_receipts r
              join sends s on s.notification_id = r.notification_id -- app_id only in this comment
              left join installations using (installation_id)
              cross join sends x
              join lateral (select 1 from sends p where p.token_key = r.token and 'app_id' = '') l on true
            """
        let found = JoinCheck.check(bad, appScoped: scoped)
        #expect(
            found.violations == [
                "join sends s on s.notification_id = r.notification_id",
                "join installations using ( installation_id )",
                "cross join sends",
                "join lateral ( … from sends p where p.token_key = r.token and = )",
            ])
        let good = """
            select * from notification_receipts r
              join sends s on s.app_id = r.app_id and s.notification_id = r.notification_id
              left join installations i using (app_id, installation_id)
              join snapshot_spans sp on sp.installation_id = r.installation_id
              left join lateral (select 1 from sends p where p.app_id = p_app and p.token_key = r.token) l on true
              cross join lateral pushledger_rollup_day(r.app_id) d
            """
        let passed = JoinCheck.check(good, appScoped: scoped)
        #expect(passed.violations == [])
        #expect(passed.checked == 3)
    }
}

/// A token-level scan of SQL text for joins to app-scoped tables whose condition lacks the
/// joined table's `app_id`. What it checks: `join T [alias] on …` and `join T using (…)`
/// (the condition must name `alias.app_id`, or `app_id` in `using`), `cross join T` (always a
/// violation), and `join lateral (select … from T alias where …)` (the subquery's where clause
/// must name `alias.app_id`). What it cannot see: comma joins in `from a, b`, correlated
/// subqueries in `exists (…)`, SQL built at run time from strings, joins to CTEs and
/// set-returning functions (their rows are checked where they are made), and SQL in Swift.
enum JoinCheck {
    struct Result {
        var checked = 0
        var violations: [String] = []
    }

    static let clauseEnds: Set<String> = [
        "join", "left", "right", "full", "inner", "cross", "where", "group", "order", "union", "having", "window",
        "limit", "returning", ";", "loop", "then", "natural",
    ]

    static func tokens(_ sql: String) -> [String] {
        let text = sql.lowercased()
            .replacingOccurrences(of: "--[^\n]*", with: " ", options: .regularExpression)
            .replacingOccurrences(of: "'([^']|'')*'", with: " ", options: .regularExpression)
            .replacingOccurrences(of: "\"", with: "")
        let pattern = try! Regex("[a-z_][a-z0-9_$]*(\\.[a-z_][a-z0-9_$]*)*|[();,=]")
        return text.matches(of: pattern).map { String(text[$0.range]) }
    }

    static func check(_ sql: String, appScoped: Set<String>) -> Result {
        let t = tokens(sql)
        var result = Result()
        func unqualified(_ name: String) -> String { name.hasPrefix("public.") ? String(name.dropFirst(7)) : name }
        /// Tokens from `start` to the end of the clause at the same parenthesis depth.
        func clause(from start: Int) -> ArraySlice<String> {
            var depth = 0, end = start
            while end < t.count {
                if t[end] == "(" {
                    depth += 1
                } else if t[end] == ")" {
                    if depth == 0 { break }
                    depth -= 1
                }
                if depth == 0 && end > start && clauseEnds.contains(t[end]) { break }
                end += 1
            }
            return t[start..<end]
        }
        var i = 0
        while i < t.count {
            defer { i += 1 }
            guard t[i] == "join" else { continue }
            let cross = i > 0 && t[i - 1] == "cross"
            var j = i + 1
            if j < t.count && t[j] == "lateral" { j += 1 }
            guard j < t.count else { break }
            if t[j] == "(" {
                // A lateral subquery: `from T alias` first, then its where clause must name alias.app_id.
                var close = j + 1, depth = 0
                while close < t.count && !(t[close] == ")" && depth == 0) {
                    if t[close] == "(" { depth += 1 } else if t[close] == ")" { depth -= 1 }
                    close += 1
                }
                let inside = t[(j + 1)..<close]
                guard let from = inside.firstIndex(of: "from"), from + 2 < inside.endIndex,
                    appScoped.contains(unqualified(t[from + 1]))
                else { continue }
                let alias = ["where", "as", ")"].contains(t[from + 2]) ? unqualified(t[from + 1]) : t[from + 2]
                guard let whereAt = inside[from...].firstIndex(of: "where") else { continue }
                let condition = clause(from: whereAt + 1)
                result.checked += 1
                if !condition.contains("\(alias).app_id") {
                    result.violations.append(
                        "join lateral ( … from \(t[from + 1]) \(alias) where \(condition.joined(separator: " ")) )")
                }
                continue
            }
            let table = unqualified(t[j])
            guard appScoped.contains(table), !(j + 1 < t.count && t[j + 1] == "(") else { continue }
            result.checked += 1
            if cross {
                result.violations.append("cross join \(table)")
                continue
            }
            var k = j + 1
            if k < t.count && t[k] == "as" { k += 1 }
            var alias = table
            if k < t.count && t[k] != "on" && t[k] != "using" {
                alias = t[k]
                k += 1
            }
            guard k < t.count else { continue }
            if t[k] == "using" {
                let list = clause(from: k + 1).prefix { $0 != ")" }
                if !list.contains("app_id") {
                    result.violations.append("join \(table) using \(list.joined(separator: " ")) )")
                }
            } else {
                let condition = clause(from: k + 1)
                if !condition.contains("\(alias).app_id") {
                    result.violations.append("join \(t[j]) \(alias) on \(condition.joined(separator: " "))")
                }
            }
        }
        return result
    }
}
