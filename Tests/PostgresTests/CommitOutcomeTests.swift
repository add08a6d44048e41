import Foundation
import Postgres
import TestSupport
import Testing

/// What `Connection.transaction` says when things go wrong at COMMIT: a broken connection there
/// is "outcome unknown", a break before it is "nothing committed", a server error at COMMIT is
/// a plain failure; and no statement timeout reaches a COMMIT.
@Suite struct CommitOutcomeTests {
    let connection: Connection

    init() throws {
        connection = try Connection.connect(url: TestDatabase.empty(prefix: "pgcommit"))
        // A deferred constraint trigger runs inside COMMIT: it stands in for whatever COMMIT
        // waits for (the synchronous standby) or dies of (the primary's machine).
        try connection.executeScript(
            """
            create table t (x int primary key deferrable initially deferred);
            create table at_commit (action text);
            create function at_commit() returns trigger language plpgsql as $$
            begin
              if exists (select 1 from at_commit where action = 'die') then
                perform pg_terminate_backend(pg_backend_pid());
                perform pg_sleep(5);
              elsif exists (select 1 from at_commit where action = 'wait') then
                perform pg_sleep(0.5);
              end if;
              return null;
            end $$;
            create constraint trigger at_commit after insert on t deferrable initially deferred
              for each row execute function at_commit();
            """)
    }

    private func act(_ action: String) throws {
        try connection.execute("insert into at_commit values (\(action))")
    }

    @Test func aConnectionLostDuringCommitIsOutcomeUnknown() throws {
        try act("die")
        let error = try #require(throws: PostgresError.self) {
            try connection.transaction { try $0.execute("insert into t values (1)") }
        }
        #expect(error.code == .commitUnknown)
        #expect(error.isOutcomeUnknown)
        #expect(error.isConnectionProblem)
        #expect(error.description.contains("may or may not have committed"))
    }

    @Test func aConnectionLostBeforeCommitIsKnownNotCommitted() throws {
        let url = try TestDatabase.empty(prefix: "pgcommit")
        let doomed = try Connection.connect(url: url)
        try doomed.execute("create table u (x int)")
        let error = try #require(throws: PostgresError.self) {
            try doomed.transaction { connection in
                try connection.execute("insert into u values (1)")
                try connection.query("select pg_terminate_backend(pg_backend_pid()), pg_sleep(5)")
            }
        }
        #expect(error.isConnectionProblem)
        #expect(!error.isOutcomeUnknown)
        #expect(try Connection.connect(url: url).query("select count(*) from u")[0].decode(0, as: Int.self) == 0)
    }

    @Test func aServerErrorAtCommitIsAFailureNotAnUnknown() throws {
        let error = try #require(throws: PostgresError.self) {
            try connection.transaction { connection in
                try connection.execute("insert into t values (2)")
                try connection.execute("insert into t values (2)")
            }
        }
        #expect(error.sqlState == "23505")
        #expect(!error.isOutcomeUnknown && !error.isConnectionProblem)
        #expect(try connection.query("select count(*) from t")[0].decode(0, as: Int.self) == 0)
    }

    /// A timeout would cancel the wait and, at a synchronous standby, leave the transaction
    /// committed on the primary alone: COMMIT runs without one, whatever the session set.
    @Test func noStatementTimeoutReachesCommit() throws {
        try act("wait")
        try connection.execute("set statement_timeout = '100ms'")
        try connection.transaction { try $0.execute("insert into t values (3)") }
        #expect(try connection.query("select count(*) from t")[0].decode(0, as: Int.self) == 1)
        // The session keeps its own timeout for everything else.
        #expect(try connection.query("show statement_timeout")[0].decode(0, as: String.self) == "100ms")
        #expect(throws: PostgresError.self) { try connection.query("select pg_sleep(0.5)") }
    }
}
