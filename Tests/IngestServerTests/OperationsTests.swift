import Foundation
import Postgres
import Synchronization
import TestSupport
import Testing

@testable import IngestServer

/// `/healthz`, `/readyz`, back-pressure (429), database outages (503), batching, graceful stop
/// and logs.
@Suite("Operations")
struct OperationsTests {
    @Test func healthAndReadiness() throws {
        let harness = try Harness()
        let health = try harness.get("/healthz")
        #expect(health.status == 200 && health.text == "ok\n")
        #expect(try harness.get("/readyz").status == 200)
        #expect(try harness.request("HEAD", "/healthz").status == 200)
    }

    @Test func queueFullIs429WithRetryAfter() throws {
        let harness = try Harness { config in
            config.queueCapacity = 1
            config.writerCount = 1
            config.maxUnitsPerBatch = 1
        }
        let store = harness.store
        let first = harness.holdWriter()
        let second = Background { try harness.telemetry(Fixtures.telemetry(count: 1)) }
        waitUntil { harness.server.queueDepth == 1 }
        let refused = try harness.telemetry(Fixtures.telemetry(count: 1))
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "1")
        #expect(refused.errorCode == "saturated")
        #expect(try harness.get("/readyz").status == 503)
        store.openGate()
        #expect(try first.value().status == 200)
        #expect(try second.value().status == 200)
        #expect(try harness.storedCount == 2)
        #expect(try harness.get("/readyz").status == 200)
    }

    /// Requests that waited behind a busy writer go in one transaction, which leaves the
    /// installations they prove alive to later; the writer applies them once its queue has stayed
    /// empty, every one.
    @Test func waitingRequestsAreWrittenTogetherInOneTransaction() throws {
        let harness = try Harness { config in config.writerCount = 1 }
        let store = harness.store
        let first = harness.holdWriter()
        let waiting = (0..<5).map { _ in Background { try harness.telemetry(Fixtures.telemetry(count: 2)) } }
        waitUntil { harness.server.queueDepth == 5 }
        store.openGate()
        #expect(try first.value().accepted == 1)
        for request in waiting { #expect(try request.value().accepted == 2) }
        #expect(store.state.withLock { $0.batchSizes } == [1, 5])
        #expect(try harness.storedCount == 11)
        let applied = eventually {
            (try? harness.get("/metrics").text)?.contains("pushledger_write_derived_applied_total 1\n") == true
        }
        #expect(applied)
        #expect(try harness.get("/metrics").text.contains("pushledger_write_derived_deferred_total 1\n"))
        #expect(try harness.count("select count(*)::int8 from derived_inputs") == 0)
        #expect(try harness.count("select count(*)::int8 from installations") == 6)
    }

    /// Once their queue stays empty after writing, the writers announce that ingest went idle
    /// (a rollup follower then starts its pass at once); with nothing written since, they do not.
    @Test func writersAnnounceIngestIdleOnceTheirQueueStaysEmpty() throws {
        let harness = try Harness()
        let listener = try Connection.connect(url: harness.databaseURL)
        let channel: String = try listener.query("select pushledger_ingest_idle_channel()")[0].decode(0)
        try listener.listen(channel)
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 200)
        var heard: [String] = []
        for _ in 0..<30 where heard.isEmpty { heard = try listener.waitForNotifications(timeout: .seconds(1)) }
        #expect(heard == [channel])
        #expect(try listener.waitForNotifications(timeout: .milliseconds(500)).isEmpty)
    }

    @Test func databaseOutageIs503AndTheServerRecoversWithoutRestart() throws {
        let harness = try Harness()
        let store = harness.store
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 200)
        store.state.withLock { $0.down = true }
        // The writer finds out: this request's units are not committed.
        let during = try harness.telemetry(Fixtures.telemetry(count: 3))
        #expect(during.status == 503)
        #expect(during.header("Retry-After") == "5")
        #expect(during.errorCode == "unavailable")
        #expect(try harness.get("/readyz").status == 503)
        // Known down: answered before the body.
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 503)
        #expect(try harness.storedCount == 1)
        harness.server.refreshKeys()
        #expect(try harness.get("/readyz").status == 503)

        store.state.withLock { $0.down = false }
        harness.server.refreshKeys()
        #expect(try harness.get("/readyz").status == 200)
        #expect(try harness.telemetry(Fixtures.telemetry(count: 2)).accepted == 2)
        #expect(harness.log.text.contains("database unreachable"))
        #expect(harness.log.text.contains("database reachable"))
    }

    @Test func startingWithTheDatabaseDownAnswers503UntilItComesUp() throws {
        let harness = try Harness(down: true)
        #expect(try harness.get("/healthz").status == 200)
        #expect(try harness.get("/readyz").status == 503)
        let reply = try harness.telemetry(Fixtures.telemetry(count: 1))
        #expect(reply.status == 503 && reply.header("Retry-After") == "5")
        harness.store.state.withLock { $0.down = false }
        harness.server.refreshKeys()
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 200)
    }

    @Test func aNewKeyWorksOnItsFirstRequestWithoutARefresh() throws {
        let harness = try Harness(keys: false)
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 401)
        try TestKeys.insert(into: Connection.connect(url: harness.databaseURL))
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 200)
    }

    @Test func revokedKeysStopWorkingAfterARefresh() throws {
        let harness = try Harness()
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 200)
        _ = try Connection.connect(url: harness.databaseURL).execute("update api_keys set revoked_at = now()")
        harness.server.refreshKeys()
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 401)
    }

    @Test func gracefulStopFinishesTheRequestInFlightAndRefusesNewOnes() throws {
        let harness = try Harness { config in config.writerCount = 1 }
        let keptAlive = try harness.connect()
        keptAlive.write(RawRequest.make("GET", "/healthz"))
        #expect(try keptAlive.readReply().status == 200)
        let inFlight = harness.holdWriter(events: 4)
        let stopping = Background { harness.server.stop() }
        waitUntil { (try? harness.connect()) == nil }
        #expect(!stopping.isFinished)  // the gate is closed: the request cannot have been answered
        // Idle keep-alive connections are closed at once: their clients reconnect elsewhere.
        #expect(keptAlive.isClosedByPeer())
        harness.store.openGate()
        let reply = try inFlight.value()
        #expect(reply.status == 200 && reply.accepted == 4)
        try stopping.value()
        #expect(try harness.storedCount == 4)
    }

    @Test func logsNeverContainAKey() throws {
        let harness = try Harness()
        let guessed = "pl_t_guessed-key-that-does-not-exist-000000"
        for key in [TestKeys.telemetry, TestKeys.revoked, guessed, TestKeys.sends] {
            _ = try harness.post("/v1/telemetry", Fixtures.telemetry(count: 1), key: key)
        }
        let text = harness.log.text
        #expect(text.contains("unknown key"))
        for key in [TestKeys.telemetry, TestKeys.revoked, guessed, TestKeys.sends] {
            #expect(!text.contains(key))
            #expect(!text.contains(String(key.prefix(12))))
        }
    }
}
