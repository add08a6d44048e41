import Foundation
import PushLedgerCore
import Synchronization
import Testing

@testable import IngestServer

/// `/healthz`, `/readyz`, `/metrics`, back-pressure (429), database outages (503), batching,
/// graceful stop and logs.
@Suite("Operations")
struct OperationsTests {
    @Test func healthAndReadiness() throws {
        let harness = try Harness(store: MemoryStore())
        let health = try harness.get("/healthz")
        #expect(health.status == 200 && health.text == "ok\n")
        #expect(try harness.get("/readyz").status == 200)
        #expect(try harness.request("HEAD", "/healthz").status == 200)
    }

    @Test func queueFullIs429WithRetryAfter() throws {
        let store = MemoryStore()
        let harness = try Harness(store: store) { config in
            config.queueCapacity = 1
            config.writerCount = 1
            config.maxUnitsPerBatch = 1
        }
        store.closeGate()
        let first = Background { try harness.telemetry(Fixtures.telemetry(count: 1)) }
        store.waitForWriters(1)
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
        #expect(store.storedCount == 2)
        #expect(try harness.get("/readyz").status == 200)
    }

    @Test func waitingRequestsAreWrittenTogetherInOneTransaction() throws {
        let store = MemoryStore()
        let harness = try Harness(store: store) { config in config.writerCount = 1 }
        store.closeGate()
        let first = Background { try harness.telemetry(Fixtures.telemetry(count: 1)) }
        store.waitForWriters(1)
        let waiting = (0..<5).map { _ in Background { try harness.telemetry(Fixtures.telemetry(count: 2)) } }
        waitUntil { harness.server.queueDepth == 5 }
        store.openGate()
        #expect(try first.value().accepted == 1)
        for request in waiting { #expect(try request.value().accepted == 2) }
        #expect(store.state.withLock { $0.batchSizes } == [1, 5])
    }

    @Test func databaseOutageIs503AndTheServerRecoversWithoutRestart() throws {
        let store = MemoryStore()
        let harness = try Harness(store: store)
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
        #expect(store.storedCount == 1)
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
        let store = MemoryStore()
        store.state.withLock { $0.down = true }
        let harness = try Harness(store: store)
        #expect(try harness.get("/healthz").status == 200)
        #expect(try harness.get("/readyz").status == 503)
        let reply = try harness.telemetry(Fixtures.telemetry(count: 1))
        #expect(reply.status == 503 && reply.header("Retry-After") == "5")
        store.state.withLock { $0.down = false }
        harness.server.refreshKeys()
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 200)
    }

    @Test func newKeysWorkAfterARefresh() throws {
        let store = MemoryStore(keys: [])
        let harness = try Harness(store: store)
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 401)
        store.state.withLock { $0.keys = TestKeys.records }
        harness.server.refreshKeys()
        #expect(try harness.telemetry(Fixtures.telemetry(count: 1)).status == 200)
    }

    @Test func gracefulStopFinishesTheRequestInFlightAndRefusesNewOnes() throws {
        let store = MemoryStore()
        let harness = try Harness(store: store) { config in config.writerCount = 1 }
        store.closeGate()
        let inFlight = Background { try harness.telemetry(Fixtures.telemetry(count: 4)) }
        store.waitForWriters(1)
        let stopping = Background { harness.server.stop() }
        waitUntil { (try? harness.connect()) == nil }
        #expect(!stopping.isFinished)  // the gate is closed: the request cannot have been answered
        store.openGate()
        let reply = try inFlight.value()
        #expect(reply.status == 200 && reply.accepted == 4)
        try stopping.value()
        #expect(store.storedCount == 4)
    }

    @Test func runStopsOnSIGTERM() throws {
        let store = MemoryStore()
        let log = LogCapture()
        let port = Mutex<UInt16>(0)
        let started = DispatchSemaphore(value: 0)
        var settings = IngestServerConfig()
        settings.port = 0
        let config = settings
        let running = Background {
            try IngestServer.run(config: config, store: store, logger: log.logger) { server in
                port.withLock { $0 = server.port }
                started.signal()
            }
        }
        started.wait()
        let connection = try RawHTTPConnection(port: port.withLock { $0 })
        connection.write(RawRequest.make("GET", "/healthz"))
        #expect(try connection.readReply().status == 200)
        kill(getpid(), SIGTERM)
        try running.value()
        #expect(log.text.contains("signal received"))
        #expect(log.text.contains("stopped"))
    }

    @Test func logsNeverContainAKey() throws {
        let harness = try Harness(store: MemoryStore())
        for key in [TestKeys.telemetry, TestKeys.revoked, "pl_t_guessed-key-that-does-not-exist-000000", TestKeys.sends] {
            _ = try harness.post("/v1/telemetry", Fixtures.telemetry(count: 1), key: key)
        }
        let text = harness.log.text
        #expect(text.contains("unknown key"))
        for key in [TestKeys.telemetry, TestKeys.revoked, "pl_t_guessed-key-that-does-not-exist-000000", TestKeys.sends] {
            #expect(!text.contains(key))
            #expect(!text.contains(String(key.prefix(12))))
        }
    }
}
