import Foundation
import Postgres
import PushLedgerContract
import TestSupport
import Testing

@testable import IngestServer

/// What a 503 says about the request's events: "nothing was stored" only when the batch never
/// reached the database; "outcome unknown" when the connection died while its statement, which
/// commits as it ends, ran. And `/readyz` while commits hang.
@Suite("Commit outcome answers")
struct CommitOutcomeAnswerTests {
    /// The database connection of the writer dies inside COMMIT (a deferred trigger on the
    /// de-duplication ledger terminates its own backend), as when the primary's machine dies
    /// while the COMMIT's WAL is on its way to the standby.
    @Test func aConnectionLostDuringCommitIsAnsweredOutcomeUnknownAndTheRetryIsSafe() throws {
        let harness = try Harness { config in config.writerCount = 1 }
        let admin = try Connection.connect(url: harness.databaseURL)
        try admin.executeScript(
            """
            create table die_at_commit (armed bool);
            insert into die_at_commit values (true);
            create function die_at_commit() returns trigger language plpgsql as $$
            begin
              if (select armed from die_at_commit) then
                perform pg_terminate_backend(pg_backend_pid());
                perform pg_sleep(5);
              end if;
              return null;
            end $$;
            create constraint trigger die_at_commit after insert on event_ids deferrable initially deferred
              for each row execute function die_at_commit();
            """)
        let body = Fixtures.telemetry(count: 3)
        let reply = try harness.telemetry(body)
        #expect(reply.status == 503)
        #expect(reply.errorCode == "outcome_unknown")
        #expect(reply.header("Retry-After") == "5")
        let message = reply.json?["message"] as? String ?? ""
        #expect(!message.contains("nothing was stored"), "\(message)")
        #expect(message.contains("may or may not be stored"))
        #expect(harness.log.text.contains("commit outcome unknown"))

        // The retry of the same events, once the database is back, stores each once.
        try admin.execute("update die_at_commit set armed = false")
        harness.server.refreshKeys()
        waitUntil { (try? harness.get("/readyz").status) == 200 }
        let retry = try harness.telemetry(body)
        #expect(retry.status == 200)
        #expect(retry.accepted! + retry.duplicates! == 3)
        #expect(try harness.storedCount == 3)
    }

    /// The batch is one statement that commits as it ends, so a break while it runs is answered
    /// "outcome unknown" even where it came before the commit (here: the backend terminated as
    /// the batch's events are inserted), and nothing is stored; the retry stores each once.
    /// "Nothing was stored" is the answer only when the batch was never sent (a database that
    /// cannot be reached, OperationsTests).
    @Test func aConnectionLostWhileTheBatchRunsIsOutcomeUnknownEvenBeforeItsCommit() throws {
        let harness = try Harness { config in config.writerCount = 1 }
        let admin = try Connection.connect(url: harness.databaseURL)
        try admin.executeScript(
            """
            create function die_now() returns trigger language plpgsql as $$
            begin
              perform pg_terminate_backend(pg_backend_pid());
              perform pg_sleep(5);
              return null;
            end $$;
            create trigger die_now after insert on event_ids for each statement execute function die_now();
            """)
        let body = Fixtures.telemetry(count: 2)
        let reply = try harness.telemetry(body)
        #expect(reply.status == 503)
        #expect(reply.errorCode == "outcome_unknown")
        let message = reply.json?["message"] as? String ?? ""
        #expect(!message.contains("nothing was stored"), "\(message)")
        #expect(try harness.storedCount == 0)

        try admin.execute("drop trigger die_now on event_ids")
        harness.server.refreshKeys()
        waitUntil { (try? harness.get("/readyz").status) == 200 }
        let retry = try harness.telemetry(body)
        #expect(retry.status == 200)
        #expect(retry.accepted == 2)
        #expect(try harness.storedCount == 2)
    }

    /// Readiness means writable: while the probe commit waits past the bound, `/readyz` is 503
    /// and `/healthz` stays 200; when it completes, ready again.
    @Test func readinessFollowsTheProbeCommit() throws {
        let harness = try Harness { config in
            config.commitProbeInterval = 0.05
            config.commitBound = 0.3
        }
        #expect(try harness.get("/readyz").status == 200)
        harness.store.holdProbe()
        waitUntil { (try? harness.get("/readyz").status) == 503 }
        #expect(try harness.get("/healthz").status == 200)
        #expect(try harness.get("/metrics").text.contains("pushledger_database_commits_complete 0"))
        harness.store.releaseProbe()
        waitUntil { (try? harness.get("/readyz").status) == 200 }
        #expect(try harness.get("/metrics").text.contains("pushledger_database_commits_complete 1"))
    }
}
