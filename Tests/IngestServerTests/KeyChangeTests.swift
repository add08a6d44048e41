import Foundation
import Postgres
import PushLedgerSupport
import Store
import Synchronization
import TestSupport
import Testing

@testable import IngestServer

/// Keys take effect at once, at every server: two servers on one database, with periodic key
/// reloads set far apart so that only the announced changes and the reads for unknown keys can
/// bring a change in.
@Suite(.serialized) struct KeyChangeTests {
    let first: Harness
    let second: IngestServer
    let secondLog = LogCapture()

    init() throws {
        let configure: (inout IngestServerConfig) -> Void = {
            $0.keyRefreshInterval = 3_600
            $0.reconnectInterval = 2
            // The flood comes from one address here; in the field from many.
            $0.http.perAddressConnectionLimit = 200
        }
        first = try Harness(configure: configure)
        var config = IngestServerConfig()
        config.port = 0
        config.http.threads = 2
        config.writerCount = 1
        configure(&config)
        second = IngestServer(
            config: config, store: PostgresIngestStore(url: first.databaseURL, connections: 1),
            logger: secondLog.logger,
            version: "test")
        try second.start()
        waitUntil { first.server.isListeningForKeyChanges && second.isListeningForKeyChanges }
    }

    /// Status of one telemetry request with `key` at each server.
    private func statuses(_ key: String, app: String = Fixtures.app) throws -> [Int] {
        try [first.port, second.port].map { port in
            let connection = try RawHTTPConnection(port: port)
            connection.write(
                RawRequest.post(
                    "/v1/telemetry", key: key, body: Fixtures.telemetry(app: app, events: [Fixtures.exposure()])))
            return try connection.readReply().status
        }
    }

    private func create(_ app: String = Fixtures.app) throws -> (id: UUID, secret: String) {
        try KeyStore().create(app: app, scope: .telemetry, on: Connection.connect(url: first.databaseURL))
    }

    /// Polls until both servers answer `status` for `key` (a change heard is applied in
    /// milliseconds; the generous deadline only keeps a loaded machine from failing the test).
    private func waitForBoth(_ key: String, _ status: Int) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if try statuses(key) == [status, status] { return true }
            usleep(20_000)
        }
        return false
    }

    @Test func keysCreatedWhileTwoServersRunAreAcceptedOnTheirFirstRequestAtBoth() throws {
        for _ in 0..<5 {
            let key = try create()
            #expect(try statuses(key.secret) == [200, 200])
        }
        // A key inserted by hand is announced by the table's trigger all the same.
        let secret = "pl_t_inserted-by-hand-0123456789abcdefghijklmn"
        try Connection.connect(url: first.databaseURL).execute(
            """
            insert into api_keys (id, app_id, scope, key_hash, key_prefix)
            values (\(UUID()), \(Fixtures.app), 'telemetry', \(SHA256.hash(secret)), 'pl_t_ins')
            """)
        #expect(try statuses(secret) == [200, 200])
    }

    /// The invalid-token feed follows the same key cache: a sends key made a moment ago reads
    /// it on its first request, at both servers.
    @Test func aNewSendsKeyReadsTheInvalidTokenFeedOnItsFirstRequest() throws {
        let key = try KeyStore().create(
            app: Fixtures.app, scope: .sends, on: Connection.connect(url: first.databaseURL))
        for port in [first.port, second.port] {
            let connection = try RawHTTPConnection(port: port)
            connection.write(
                RawRequest.make("GET", "/v1/tokens/invalid", headers: [("Authorization", "Bearer \(key.secret)")]))
            let reply = try connection.readReply()
            #expect(reply.status == 200, "\(reply.text)")
        }
    }

    @Test func aRevokedOrExpiredKeyIsRefusedAtBothOnceTheChangeIsHeard() throws {
        let revoked = try create()
        let expiring = try create()
        #expect(try statuses(revoked.secret) == [200, 200])
        #expect(try statuses(expiring.secret) == [200, 200])
        let readsBefore = second.keyFreshReads
        #expect(try KeyStore().revoke(id: revoked.id, on: Connection.connect(url: first.databaseURL)))
        #expect(try waitForBoth(revoked.secret, 401))
        try Connection.connect(url: first.databaseURL).execute(
            "update api_keys set expires_at = now() where id = \(expiring.id)")
        #expect(try waitForBoth(expiring.secret, 401))
        let expired = try RawHTTPConnection(port: second.port)
        expired.write(RawRequest.post("/v1/telemetry", key: expiring.secret, body: Fixtures.telemetry(count: 1)))
        #expect(try expired.readReply().errorCode == "key_expired")
        // Heard, not found by a periodic reload: the server read the keys for the announcements.
        #expect(second.keyFreshReads > readsBefore)
    }

    @Test func lastUsesAreStoredWithoutAnnouncingAChange() throws {
        let listener = try KeyChangeListener(url: first.databaseURL)
        let key = try create()
        var heard = false
        let deadline = ContinuousClock.now + .seconds(10)
        while !heard, ContinuousClock.now < deadline { heard = try listener.waitForChange(timeout: .milliseconds(100)) }
        #expect(heard)
        try KeyStore().recordUse([(id: key.id, at: Date())], on: Connection.connect(url: first.databaseURL))
        #expect(try listener.waitForChange(timeout: .milliseconds(500)) == false)
    }

    @Test func anOrdinaryClientWithAFreshKeyIsServedBesideAFloodOfUnknownKeys() throws {
        let fresh = try create()
        usleep(200_000)
        let readsBefore = first.server.keyFreshReads
        let started = ContinuousClock.now
        let floodStatuses = Mutex<[Int: Int]>([:])
        // 48 clients at once, each sending unknown keys one request after another.
        let flood = (0..<48).map { worker in
            Background {
                for i in 0..<44 {
                    let connection = try? RawHTTPConnection(port: first.port)
                    connection?.write(
                        RawRequest.post("/v1/telemetry", key: "pl_t_guess\(worker)-\(i)", body: [0x7b, 0x7d]))
                    let status = (try? connection?.readReply().status) ?? nil
                    floodStatuses.withLock { $0[status ?? 0, default: 0] += 1 }
                }
            }
        }
        var ordinary: [Int] = []
        for _ in 0..<40 {
            ordinary.append(try first.telemetry(Fixtures.telemetry(count: 1), key: fresh.secret).status)
        }
        for client in flood { try client.value() }
        let elapsed = ContinuousClock.now - started
        #expect(ordinary == Array(repeating: 200, count: 40))
        #expect(floodStatuses.withLock { $0 } == [401: 2_112])
        // The flood cost at most one read of the key table per 200 ms (and the first at once).
        let reads = first.server.keyFreshReads - readsBefore
        #expect(reads >= 1 && reads <= Int(elapsed / .milliseconds(200)) + 2)
    }

    @Test func aLostListenerReconnectsAndReadsTheKeysAgain() throws {
        let key = try create()
        #expect(try statuses(key.secret) == [200, 200])
        let admin = try Connection.connect(url: first.databaseURL)
        try admin.execute(
            """
            select pg_terminate_backend(pid) from pg_stat_activity
             where datname = current_database() and query = 'LISTEN pushledger_keys'
            """)
        // Revoked while nobody listens (each reconnects after `reconnectInterval`): the reconnect
        // reads the keys again and finds it gone. The loss is waited for in the logs, which keep
        // it, not in the listening state, which is back once the reconnect is made.
        let lost = "key change listener lost"
        waitUntil { first.log.text.contains(lost) && secondLog.text.contains(lost) }
        #expect(try KeyStore().revoke(id: key.id, on: admin))
        #expect(try waitForBoth(key.secret, 401))
        waitUntil { first.server.isListeningForKeyChanges && second.isListeningForKeyChanges }
        // And hears the next change again.
        let next = try create()
        #expect(try statuses(next.secret) == [200, 200])
    }
}
