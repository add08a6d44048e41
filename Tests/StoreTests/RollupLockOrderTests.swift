import Foundation
import Postgres
import Store
import Testing

@testable import OutcomeEngine

/// A pass takes the prompt cohorts' lock before the send rollups', though it recomputes the
/// prompt cohorts after the refresh's first step: an erasure and a rebuild take the prompt
/// cohorts' lock first too, so a pass that waits for it holds nothing they could wait for.
@Suite struct RollupLockOrderTests {
    typealias F = Fixture

    @Test(arguments: [false, true])
    func aPassWaitingForThePromptCohortsLockHoldsNoOther(onTwoConnections: Bool) throws {
        let db = try StoreDatabase()
        let unit = F.telemetry(
            F.envelope(installation: F.installation(1)), [F.event(1, at: -2, F.androidSettings(enabled: true))])
        _ = try db.write(unit)
        _ = try ReportRollups.refresh(connection: db.connection, asOf: F.time(0))
        _ = try db.write(F.sends([F.send(2, notification: 2, at: -1, installation: F.installation(1))]))

        let blocker = try Connection.connect(url: db.url)
        try blocker.execute("select pg_advisory_lock(hashtext('pushledger_refresh_prompt_rollups'))")
        let url = db.url
        let second = onTwoConnections ? SecondConnection { try Connection.connect(url: url) } : nil
        let pass = BlockedWork(on: try Connection.connect(url: db.url)) {
            try ReportRollups.refresh(connection: $0, asOf: F.time(1), secondConnection: second).full
        }
        try pass.waitUntilWaiting(seenFrom: db.connection)
        let held: Int = try db.connection.query(
            "select count(*)::int as n from pg_locks where pid = \(pass.pid) and locktype = 'advisory' and granted"
        )[0].decode("n")
        #expect(held == 0, "the pass waits for the prompt cohorts' lock holding another advisory lock")
        try blocker.execute("select pg_advisory_unlock(hashtext('pushledger_refresh_prompt_rollups'))")
        #expect(try !pass.value(), "the pass rebuilt instead of refreshing")
        #expect(try db.count("send_outcomes") == 1)
        #expect(try db.value("select as_of from prompt_rollup_state") as Date == F.time(1))
    }
}
