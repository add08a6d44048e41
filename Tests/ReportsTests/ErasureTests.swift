import Foundation
import Postgres
import Reports
import TestSupport
import Testing

/// `pushledger erase` over a simulated fleet posted through the real server: afterwards no
/// table (`pg_dump --data-only`) holds the installation's id or tokens, every other
/// installation's sends classify exactly as before, and the rollups, re-derived by the erase,
/// equal a full recomputation without the erased sends.
@Suite("Erasure")
struct ErasureTests {
    @Test func eraseRemovesEveryTraceAndLeavesOthersUnchanged() throws {
        let url = try TestDatabase.fresh(prefix: "erase")
        let (connection, truth) = try SimulatorTruthTests.simulate(seed: 5, url: url)
        let app = truth.appID
        // The installation with the most sends resolved by token: it has registrations too.
        let victim: UUID = try connection.query(
            """
            select installation_id from sends where app_id = \(app) and resolved_by = 'token'
             group by 1 order by count(*) desc, 1 limit 1
            """)[0].decode(0)
        let id = victim.uuidString.lowercased()
        let tokens: [String] = try connection.query(
            """
            select distinct token from token_registrations where app_id = \(app) and installation_id = \(victim) \
            order by 1
            """
        ).map { try $0.decode(0) }
        #expect(!tokens.isEmpty)
        // Failed events as stored before they named their installation and token (migration
        // 0009): carrying the id (as the app wrote it, upper case) or a token, and one of
        // another installation. The raw-text search finds them.
        let other: UUID = try connection.query(
            "select installation_id from installations where app_id = \(app) and installation_id <> \(victim) limit 1")[
                0
            ].decode(0)
        for body in [
            "{\"installation_id\":\"\(victim.uuidString)\",\"events\":[1]}", "{\"token\":\"\(tokens[0])\"}",
            "{\"installation_id\":\"\(other.uuidString.lowercased())\"}",
        ] {
            try connection.execute(
                """
                insert into failed_events (app_id, endpoint, error_code, message, raw_json, received_at)
                values (\(app), 'telemetry', 'invalid_json', 'test', \(body), now())
                """)
        }
        let env = ["DATABASE_URL": url]
        #expect(try CommandRunner.run(["rollup"], environment: env).status == 0)
        let dumpBefore = try PostgresDump.run(["--data-only"], url: url).lowercased()
        #expect(dumpBefore.contains(id) && tokens.allSatisfy { dumpBefore.contains($0.lowercased()) })
        let query = SimulatorTruthTests.query(truth)
        let othersBefore = try othersFigures(connection, app: app, query: query, victim: victim, tokens: tokens)
        let sendsBefore = try count(connection, "select count(*) from sends where app_id = \(app)")
        let victimSends = try count(
            connection, "select count(*) from sends where app_id = \(app) and installation_id = \(victim)")
        #expect(victimSends > 0)

        let dry = try CommandRunner.run(
            ["erase", "--app", app, "--installation", id, "--search-raw-text", "--dry-run", "--format", "json"],
            environment: env)
        #expect(dry.status == 0, "\(dry.stderr)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [[String: Any]])
        let wouldRemove = Dictionary(
            uniqueKeysWithValues: listed.map { ($0["table"] as! String, $0["would_remove"] as! Int) })
        #expect(
            wouldRemove["sends"] ?? 0 >= victimSends && wouldRemove["failed_events"] == 2
                && wouldRemove["installations"] == 1)
        #expect(try count(connection, "select count(*) from sends where app_id = \(app)") == sendsBefore)
        #expect(try count(connection, "select count(*) from erasures") == 0)

        let erased = try CommandRunner.run(
            ["erase", "--app", app, "--installation", id, "--search-raw-text", "--format", "json"], environment: env)
        #expect(erased.status == 0, "\(erased.stderr)")
        #expect(!erased.stderr.contains(id) && !erased.stderr.lowercased().contains(id))
        let removed = try #require(try JSONSerialization.jsonObject(with: Data(erased.stdout.utf8)) as? [[String: Any]])
        #expect(removed.map { $0["removed"] as! Int } == listed.map { $0["would_remove"] as! Int })

        // No table holds the id (in either case) or a token; the erasure is there by its hash.
        let dump = try PostgresDump.run(["--data-only"], url: url).lowercased()
        #expect(!dump.contains(id))
        for token in tokens { #expect(!dump.contains(token.lowercased()), "a token left in the dump") }
        #expect(dump.contains(other.uuidString.lowercased()))
        #expect(
            try count(
                connection, "select count(*) from erasures where subject_hash = sha256(convert_to(\(id), 'UTF8'))") == 1
        )

        // Everyone else classifies as before; the rollups hold exactly the sends left, and equal
        // a recomputation of every day.
        #expect(try othersFigures(connection, app: app, query: query, victim: victim, tokens: tokens) == othersBefore)
        let sendsAfter = try count(connection, "select count(*) from sends where app_id = \(app)")
        #expect(sendsAfter == sendsBefore - (wouldRemove["sends"] ?? 0))
        #expect(
            try count(connection, "select coalesce(sum(sends), 0) from send_rollups_daily where app_id = \(app)")
                == sendsAfter)
        let rollups = try rollupRows(connection)
        let asOf: Date = try connection.query("select max(as_of) from send_rollups_daily")[0].decode(0)
        try connection.execute(
            "select pushledger_mark_rollups_dirty(\(app), min(day), max(day)) from send_rollups_daily")
        try connection.execute("select * from pushledger_refresh_rollups(\(asOf), interval '1 day')")
        #expect(try rollupRows(connection) == rollups)

        // Idempotent: a second run removes nothing and counts a second run of the erasure.
        let again = try CommandRunner.run(
            ["erase", "--app", app, "--installation", id, "--format", "json"], environment: env)
        let second = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [[String: Any]])
        #expect(second.allSatisfy { $0["removed"] as? Int == 0 })
        #expect(try count(connection, "select runs::int8 from erasures") == 2)
    }

    @Test func aTokenAloneCanBeErasedAndBadUsageIsRefused() throws {
        let url = try TestDatabase.fresh(prefix: "erase")
        let env = ["DATABASE_URL": url]
        #expect(try CommandRunner.run(["migrate"], environment: env).status == 0)
        let connection = try Connection.connect(url: url)
        let token = "fcm-token-" + String(repeating: "x", count: 40)
        try connection.execute(
            """
            insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by, \
            channel, sent_at, status, received_at)
            values ('a', \(UUID()), \(UUID()), 'fcm', \(token), null, 'unresolved', 'default', now() - interval '1 \
            hour', 200, now()),
                   ('a', \(UUID()), \(UUID()), 'fcm', 'another-token', null, 'unresolved', 'default', now() - interval \
            '1 hour', 200, now())
            """)
        let run = try CommandRunner.run(["erase", "--app", "a", "--token", token, "--format", "csv"], environment: env)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("sends,1"))
        #expect(try count(connection, "select count(*) from sends") == 1)
        #expect(!(try PostgresDump.run(["--data-only"], url: url)).contains(token))
        for bad in [
            ["erase", "--app", "a"], ["erase", "--app", "a", "--installation", "nope"],
            ["erase", "--app", "a", "--installation", UUID().uuidString, "--token", "t"],
            ["erase", "--app", "a", "--token", "short-token", "--search-raw-text"],
        ] {
            #expect(try CommandRunner.run(bad, environment: env).status == 64, "\(bad)")
        }
    }

    private func count(_ connection: Connection, _ sql: SQL) throws -> Int {
        try connection.query(sql)[0].decode(0, as: Int.self)
    }

    /// Outcome counts per installation of every send not the victim's nor to its tokens.
    private func othersFigures(
        _ connection: Connection, app: String, query: ReportQuery, victim: UUID, tokens: [String]
    ) throws -> [String] {
        try connection.query(
            """
            select coalesce(c.installation_id::text, 'unresolved') || ' ' || c.outcome::text || ' ' || count(*) as line
              from pushledger_classified_sends(\(app), \(query.from), \(query.to), \(query.asOf),
                                               \(Int(query.confirmationWindow)) * interval '1 second') c
              join sends s on s.app_id = c.app_id and s.event_id = c.event_id
             where c.installation_id is distinct from \(victim) and strpos(\(tokens.joined(separator: "\n")), s.token) \
            = 0
             group by c.installation_id, c.outcome order by 1
            """
        ).map { try $0.decode("line") }
    }

    private func rollupRows(_ connection: Connection) throws -> [String] {
        try connection.query(
            "select (to_jsonb(r) - 'as_of' - 'refreshed_at')::text as row from send_rollups_daily r order by 1"
        ).map { try $0.decode("row") }
    }
}
