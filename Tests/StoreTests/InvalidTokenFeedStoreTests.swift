import Foundation
import Postgres
import Store
import TestSupport
import Testing

/// The feed's store side: what the writer keeps in token_invalidations, and the paging horizon.
@Suite struct InvalidTokenFeedStoreTests {
    typealias F = Fixture
    let db: StoreDatabase
    init() throws { db = try StoreDatabase() }

    /// A page once every stored position is servable (other tests' transactions can hold the
    /// cluster-wide horizon back for a moment).
    func page(_ cursor: String? = nil, limit: Int = 1000, since: String? = nil) throws -> InvalidTokenFeed.Page {
        try TestDatabase.waitForFeedHorizon(on: db.connection)
        return try unsettledPage(cursor, limit: limit, since: since)
    }

    func unsettledPage(_ cursor: String? = nil, limit: Int = 1000, since: String? = nil) throws -> InvalidTokenFeed.Page
    {
        let query = try InvalidTokenFeed.Query.parse(since: since, limit: String(limit), cursor: cursor).get()
        return try InvalidTokenFeed().page(appID: F.app, query: query, on: db.connection)
    }

    @Test func aTokenIsInTheFeedFromItsFirstInvalidationAfterItsLatestRegistration() throws {
        let env = F.envelope(installation: F.installation(1))
        _ = try db.write(F.telemetry(env, [F.event(1, at: 1, F.token("a"))]))
        _ = try db.write(
            F.sends([
                F.send(10, notification: 1, at: 3, token: "a", status: 404, reason: "UNREGISTERED"),
                F.send(11, notification: 2, at: 4, token: "a", status: 404, reason: "UNREGISTERED"),
            ]))
        let first = try page()
        #expect(first.tokens.map(\.token) == ["a"])
        #expect(first.tokens.first?.invalidatedAt == F.time(3))
        #expect(first.tokens.first?.installationID == F.installation(1))
        // A late, earlier result corrects the row in place: not served again.
        _ = try db.write(F.sends([F.send(12, notification: 3, at: 2, token: "a", status: 404, reason: "UNREGISTERED")]))
        #expect(try page(first.nextCursor).tokens.isEmpty)
        #expect(try page().tokens.first?.invalidatedAt == F.time(2))
        // Registered again between results: invalid from the result after the registration, served anew.
        _ = try db.write(F.telemetry(env, [F.event(2, at: 3.5, F.token("a"))]))
        let again = try page(first.nextCursor)
        #expect(again.tokens.map(\.invalidatedAt) == [F.time(4)])
        // Registered after every result: valid, gone from the feed.
        _ = try db.write(F.telemetry(env, [F.event(3, at: 5, F.token("a"))]))
        #expect(try page().tokens.isEmpty)
    }

    @Test func cursorsRoundTripAndForgedOnesAreRefused() throws {
        _ = try db.write(
            F.sends(
                (0..<5).map {
                    F.send(
                        10 + $0, notification: $0, at: Double($0), token: "t\($0)", status: 404, reason: "UNREGISTERED")
                }))
        var seen: [String] = []
        var cursor: String? = nil
        for _ in 0..<3 {
            let p = try page(cursor, limit: 2)
            seen += p.tokens.map(\.token)
            cursor = p.nextCursor
        }
        #expect(seen.sorted() == ["t0", "t1", "t2", "t3", "t4"])
        #expect(try page(cursor, limit: 2).tokens.isEmpty)
        for forged in [
            "", "f1", "f1.-.x.apns.00000000-0000-0000-0000-000000000000.-",
            "f2.-.1.apns.00000000-0000-0000-0000-000000000000.-",
            "f1.-.1.mail.00000000-0000-0000-0000-000000000000.-",
        ] {
            #expect(throws: InvalidTokenFeed.QueryError.self) {
                try InvalidTokenFeed.Query.parse(since: nil, limit: nil, cursor: forged).get()
            }
        }
    }

    /// A writer that committed after a reader's page, with a lower transaction id than rows the
    /// reader already saw, is still served: positions at or above the oldest running
    /// transaction wait for the next walk.
    @Test func aWriterStillRunningHoldsTheHorizonBack() throws {
        let slow = try Connection.connect(url: db.url)
        try slow.execute("begin")
        _ = try slow.query("select pg_current_xact_id()")  // takes its id now: lower than the next writer's
        _ = try db.write(
            F.sends([F.send(10, notification: 1, at: 1, token: "fast", status: 404, reason: "UNREGISTERED")]))
        let first = try unsettledPage()
        #expect(first.tokens.isEmpty, "the fast writer's row sits above the running transaction")
        try slow.execute(
            """
            insert into token_invalidations (app_id, provider, token_key, token, invalidated_at, status, feed_xid)
            values (\(F.app), 'fcm', md5('slow')::uuid, 'slow', now(), 404, pg_current_xact_id())
            """)
        try slow.execute("commit")
        let second = try page(first.nextCursor)
        #expect(second.tokens.map(\.token).sorted() == ["fast", "slow"])
        #expect(try page(second.nextCursor).tokens.isEmpty)
    }
}
