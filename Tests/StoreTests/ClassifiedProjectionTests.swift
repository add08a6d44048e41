import Foundation
import Postgres
import TestSupport
import Testing

/// pushledger_classified (sql/engine/outcome.sql) is the one projection of a classified send:
/// the planner must inline it into the caller's query and look a cause up only for a send that
/// has one (the look-up costs index probes in six tables; docs/rollups.md has what calling it for
/// every send cost).
@Suite struct ClassifiedProjectionTests {
    @Test func itIsInlinedAndLooksACauseUpOnlyForASendWithOne() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "projection"))
        let plan = try connection.query(
            """
            explain (costs off)
            select c.* from (values ('00000000-0000-4000-8000-000000000001'::uuid)) s(event_id)
             cross join lateral pushledger_classified(
                   row('app', s.event_id, '00000000-0000-4000-8000-000000000002', \
            '00000000-0000-4000-8000-000000000003',
                       'explicit', now(), 'fcm', '00000000-0000-4000-8000-000000000004', 'default', null, 200, null, \
            null,
                       null, null, 'android', null, null, null, null, null, null, null, null, null, false, false, false,
                       false, null, false, null, null, null, null, null, true, false)::pushledger_send_facts,
                   now(), '24 hours') c
            """
        ).map { try $0.decode(0, as: String.self) }.joined(separator: "\n")
        #expect(!plan.contains("Function Scan on pushledger_classified"), "not inlined:\n\(plan)")
        #expect(plan.contains("Function Scan on pushledger_send_cause"), "\(plan)")
        #expect(plan.contains("One-Time Filter"), "the cause look-up is not gated by pushledger_has_cause:\n\(plan)")
    }
}
