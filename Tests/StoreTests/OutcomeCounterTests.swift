import Foundation
import Postgres
import PushLedgerRules
import Reports
import TestSupport
import Testing

/// The outcome counters are one list in each language: Swift's ``OutcomeCounter`` and SQL's
/// `pushledger_outcome_counters()` with `pushledger_counts_in` (sql/engine/outcome_counters.sql).
/// These tests hold the two equal, name by name and meaning by meaning, and hold every place SQL
/// carries the counters to that list.
@Suite struct OutcomeCounterTests {
    static func connection() throws -> Connection {
        try Connection.connect(url: try TestDatabase.fresh(prefix: "counters"))
    }

    @Test func swiftAndSQLListTheSameCountersInTheSameOrder() throws {
        let sql = try Self.connection().query("select counter from pushledger_outcome_counters() order by ordinal")
        let names = try sql.map { try $0.decode("counter", as: String.self) }
        #expect(names == OutcomeCounter.allCases.map(\.rawValue))
        #expect(names.count == 13)
    }

    /// The shared test table: every counter against every outcome and token flag, in both languages.
    @Test func swiftAndSQLCountTheSameSends() throws {
        let outcomes = SendOutcome.allCases.map(\.rawValue).joined(separator: ",")
        let rows = try Self.connection().query(
            """
            select c.counter, o.outcome, t.token_invalid, u.to_invalid_token,
                   pushledger_counts_in(c.counter, o.outcome, t.token_invalid, u.to_invalid_token) as counts
              from pushledger_outcome_counters() c
             cross join unnest(string_to_array(\(outcomes), ',')) o(outcome)
             cross join (values (false), (true)) t(token_invalid)
             cross join (values (false), (true)) u(to_invalid_token)
            """)
        #expect(rows.count == OutcomeCounter.allCases.count * SendOutcome.allCases.count * 4)
        for row in rows {
            let name: String = try row.decode("counter")
            let outcomeName: String = try row.decode("outcome")
            guard let counter = OutcomeCounter(rawValue: name), let outcome = SendOutcome(rawValue: outcomeName) else {
                Issue.record("SQL counter \(name) or outcome \(outcomeName) unknown to Swift")
                continue
            }
            let tokenInvalid: Bool = try row.decode("token_invalid")
            let toInvalid: Bool = try row.decode("to_invalid_token")
            let sql = try row.decode("counts", as: Bool?.self)
            #expect(sql != nil, "pushledger_counts_in has no case for \(name)")
            #expect(
                sql == counter.counts(outcome, tokenInvalid: tokenInvalid, toInvalidToken: toInvalid),
                "\(name) of \(outcomeName), token_invalid \(tokenInvalid), to_invalid_token \(toInvalid)")
        }
        let unknown = try Self.connection().query(
            "select pushledger_counts_in('delivered', 'opened', true, true) as counts")
        #expect(try unknown[0].decode("counts", as: Bool?.self) == nil)
    }

    /// Every outcome has the counter that counts it, and counts in sends.
    @Test func everyOutcomeIsCounted() {
        for outcome in SendOutcome.allCases {
            #expect(OutcomeCounter(outcome).counts(outcome, tokenInvalid: false, toInvalidToken: false))
            #expect(OutcomeCounter.sends.counts(outcome, tokenInvalid: false, toInvalidToken: false))
            var counts = OutcomeCounts()
            counts.add(outcome, tokenInvalid: true, toInvalidToken: false)
            #expect(
                counts.count(of: outcome) == 1 && counts.sends == 1 && counts.tokenInvalid == 1
                    && counts.toInvalidToken == 0)
        }
    }

    /// The rollup rows have a column per counter, and every function that returns outcome counts
    /// (a counter no other result has: blocked_app, unconfirmed, …, or the rollup-row type)
    /// returns all thirteen, in the list's order.
    @Test func theRollupsAndReportFunctionsCarryTheList() throws {
        let connection = try Self.connection()
        let columns = try connection.query(
            """
            select c.counter from pushledger_outcome_counters() c
             where not exists (select 1 from pg_attribute a
                                where a.attrelid = 'send_rollups_daily'::regclass and a.attname = c.counter
                                  and a.atttypid in ('bigint'::regtype, 'integer'::regtype))
            """)
        let missing = try columns.map { try $0.decode("counter", as: String.self) }
        #expect(missing.isEmpty, "send_rollups_daily lacks \(missing)")
        let functions = try connection.query(
            """
            with c as (select array_agg(counter order by ordinal) as names from pushledger_outcome_counters())
            select p.proname,
                   array_to_string(array(select n from unnest(p.proargnames) with ordinality a(n, i)
                                          where n = any (c.names) order by i), ',') as counters
              from pg_proc p, c
             where p.proname like 'pushledger\\_%'
               and exists (select 1 from unnest(p.proargnames) n
                            where n in ('blocked_app', 'blocked_channel', 'unconfirmed', 'unattributed'))
               and p.proargmodes is not null
            union all
            -- The report functions returning the named rollup row: the counters are its attributes.
            select p.proname,
                   array_to_string(array(select a.attname::text from pg_attribute a
                                          where a.attrelid = p.prorettype::regtype::text::regclass
                                            and a.attname = any (c.names) order by a.attnum), ',')
              from pg_proc p, c
             where p.proname like 'pushledger\\_%' and p.prorettype = 'pushledger_rollup_row'::regtype
            """)
        #expect(functions.count >= 5)
        for f in functions {
            let name: String = try f.decode("proname")
            #expect(
                try f.decode("counters", as: String.self)
                    == OutcomeCounter.allCases.map(\.rawValue).joined(separator: ","),
                "\(name) returns the counters otherwise")
        }
    }
}
