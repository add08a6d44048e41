import Foundation
import Gzip
import PushLedgerKit
import TestSupport
import Testing

/// Flush against a loopback HTTP server scripted per request: retries, backoff, what is kept
/// and what is dropped for each status of the contract.
@Suite("PushLedgerKit upload")
struct UploadTests {
    /// `{"accepted":N,"duplicates":0,"rejected":[]}` for the request's own events.
    static func acceptAll(_ request: LoopbackServer.Request) -> LoopbackServer.Reply {
        .status(200, "{\"accepted\":\(events(request).count),\"duplicates\":0,\"rejected\":[]}")
    }

    /// The decoded body of a request the SDK sent.
    static func body(_ request: LoopbackServer.Request) -> [String: Any] {
        let json = (try? Gzip.decompress(request.body, limit: 64 << 20)) ?? []
        return (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] ?? [:]
    }

    static func events(_ request: LoopbackServer.Request) -> [[String: Any]] {
        body(request)["events"] as? [[String: Any]] ?? []
    }

    static func ledger(
        _ server: LoopbackServer, log: LogCapture? = nil, _ change: (inout PushLedger.Configuration) -> Void = { _ in }
    ) throws -> PushLedger {
        var configuration = KitFixtures.configuration(endpoint: server.url, log: log)
        change(&configuration)
        return try PushLedger(configuration: configuration)
    }

    @Test func aBatchIsGzippedAuthorizedAndStampedPerAttempt() async throws {
        let server = try LoopbackServer { request, number in
            number == 0
                ? .status(503, #"{"error":"unavailable","message":"retry"}"#, headers: ["Retry-After: 0"])
                : Self.acceptAll(request)
        }
        defer { server.stop() }
        let ledger = try Self.ledger(server)
        let ids = try KitFixtures.everyEventType().map { try ledger.record($0) }
        let result = try await ledger.flush()
        #expect(result.accepted == 6 && result.duplicates == 0 && result.rejected.isEmpty)
        #expect(ledger.pendingCount == 0)
        let seen = server.seen
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { $0.path == "/v1/telemetry" && $0.headers["content-encoding"] == "gzip" })
        #expect(seen.allSatisfy { $0.headers["authorization"] == "Bearer \(KitFixtures.key)" })
        let bodies = seen.map(Self.body)
        #expect(bodies[0]["app_id"] as? String == KitFixtures.app)
        #expect(bodies[0]["installation_id"] as? String == ledger.installationID.uuidString.lowercased())
        #expect(bodies[0]["platform"] as? String == "ios")
        #expect(bodies[0]["app_version"] as? String == "2.1.0")
        let sentAt = bodies.compactMap { $0["sent_at"] as? String }
        #expect(sentAt.count == 2 && sentAt[0] != sentAt[1], "sent_at is stamped per attempt")
        #expect(Self.events(seen[1]).compactMap { $0["event_id"] as? String } == ids.map { $0.uuidString.lowercased() })
    }

    @Test func serverDownKeepsEverythingAndALaterFlushDelivers() async throws {
        let directory = KitFixtures.directory()
        try LoopbackServer.withRefusingPort { port in
            var configuration = KitFixtures.configuration(endpoint: "http://127.0.0.1:\(port)", directory: directory)
            configuration.retry.maxAttempts = 2
            let ledger = try PushLedger(configuration: configuration)
            for _ in 0..<5 { try ledger.record(.experimentExposure(experiment: "e", variant: "v")) }
        }
        let down = try PushLedger(
            configuration: KitFixtures.configuration(endpoint: "http://127.0.0.1:9", directory: directory))
        await #expect {
            try await down.flush()
        } throws: { error in
            guard case .flushIncomplete(5, .network, let partial) = error as? PushLedgerError else { return false }
            return partial.accepted == 0
        }
        #expect(down.pendingCount == 5)
        let server = try LoopbackServer { request, _ in Self.acceptAll(request) }
        defer { server.stop() }
        let up = try PushLedger(configuration: KitFixtures.configuration(endpoint: server.url, directory: directory))
        #expect(try await up.flush().accepted == 5)
        #expect(up.pendingCount == 0)
    }

    @Test func a503ThatLastsIsReportedAndNothingIsLost() async throws {
        // Retry-After 5 s, honoured up to the policy's 0.2 s.
        let server = try LoopbackServer { _, _ in
            .status(503, #"{"error":"unavailable","message":"down"}"#, headers: ["Retry-After: 5"])
        }
        defer { server.stop() }
        let ledger = try Self.ledger(server)
        for _ in 0..<3 { try ledger.record(.experimentExposure(experiment: "e", variant: "v")) }
        await #expect(
            throws: PushLedgerError.flushIncomplete(
                remaining: 3, reason: .unavailable(status: 503, code: "unavailable"), partial: FlushResult())
        ) {
            try await ledger.flush()
        }
        #expect(server.seen.count == 3, "maxAttempts 3")
        #expect(ledger.pendingCount == 3)
        #expect(try await ledger.flushIfDue(now: Date()) == nil, "backing off after the failure")
        await #expect(throws: PushLedgerError.self) { try await ledger.flushIfDue(now: Date(timeIntervalSinceNow: 60)) }
        #expect(server.seen.count == 6, "due again once the backoff ran out")
    }

    @Test func unauthorizedKeepsTheEventsWithoutRetrying() async throws {
        for status in [401, 403] {
            let server = try LoopbackServer { _, _ in
                .status(status, #"{"error":"unauthorized","message":"unknown or revoked API key"}"#)
            }
            defer { server.stop() }
            let log = LogCapture()
            let ledger = try Self.ledger(server, log: log)
            try ledger.record(.experimentExposure(experiment: "e", variant: "v"))
            await #expect(
                throws: PushLedgerError.flushIncomplete(
                    remaining: 1, reason: .unauthorized(status: status, code: "unauthorized"), partial: FlushResult())
            ) {
                try await ledger.flush()
            }
            #expect(server.seen.count == 1)
            #expect(ledger.pendingCount == 1)
            #expect(!log.lines.isEmpty && log.lines.allSatisfy { !$0.contains(KitFixtures.key) })
        }
    }

    @Test func rejectedEventsAreDroppedLoggedAndNeverRetried() async throws {
        let server = try LoopbackServer { request, _ in
            let events = Self.events(request)
            let id = events[1]["event_id"] as? String ?? ""
            return .status(
                200,
                #"{"accepted":2,"duplicates":0,"rejected":[{"index":1,"event_id":"\#(id)","error":"too_old","#
                    + #""message":"too old"}]}"#
            )
        }
        defer { server.stop() }
        let log = LogCapture()
        let ledger = try Self.ledger(server, log: log)
        let ids = try (0..<3).map { _ in try ledger.record(.experimentExposure(experiment: "e", variant: "v")) }
        let result = try await ledger.flush()
        #expect(result.accepted == 2)
        #expect(result.rejected == [RejectedEvent(eventID: ids[1], code: "too_old", message: "too old")])
        #expect(ledger.pendingCount == 0)
        #expect(
            log.lines.contains {
                $0.contains("event rejected") && $0.contains(ids[1].uuidString.lowercased()) && $0.contains("too_old")
            })
        #expect(try await ledger.flush() == FlushResult())
        #expect(server.seen.count == 1)
    }

    @Test func anEnvelopeErrorDropsTheBatch() async throws {
        let server = try LoopbackServer { _, _ in
            .status(
                400, #"{"error":"invalid_field","message":"invalid field \"app_version\""}"#,
                headers: ["Content-Type: application/json"])
        }
        defer { server.stop() }
        let ledger = try Self.ledger(server)
        for _ in 0..<2 { try ledger.record(.experimentExposure(experiment: "e", variant: "v")) }
        let result = try await ledger.flush()
        #expect(result.rejected.count == 2 && result.rejected.allSatisfy { $0.code == "invalid_field" })
        #expect(ledger.pendingCount == 0)
    }

    @Test func aProxysHtml400KeepsTheEvents() async throws {
        let server = try LoopbackServer { _, _ in
            .status(400, "<html><body>Request blocked by firewall</body></html>", headers: ["Content-Type: text/html"])
        }
        defer { server.stop() }
        let ledger = try Self.ledger(server) { $0.retry.maxAttempts = 1 }
        for _ in 0..<3 { try ledger.record(.experimentExposure(experiment: "e", variant: "v")) }
        await #expect(throws: PushLedgerError.self) { try await ledger.flush() }
        #expect(ledger.pendingCount == 3)
    }

    @Test func batchesStayWithinTheLimitAndA413Splits() async throws {
        let server = try LoopbackServer { request, _ in
            Self.events(request).count > 2
                ? .status(413, #"{"error":"too_many_events","message":"over 2"}"#) : Self.acceptAll(request)
        }
        defer { server.stop() }
        let ledger = try Self.ledger(server) { $0.maxBatchEvents = 4 }
        for _ in 0..<9 { try ledger.record(.experimentExposure(experiment: "e", variant: "v")) }
        let result = try await ledger.flush()
        #expect(result.accepted == 9 && result.rejected.isEmpty)
        #expect(server.seen.map { Self.events($0).count } == [4, 2, 2, 2, 2, 1])
    }

    @Test func eventsOfAnotherAppVersionGoInTheirOwnBatch() async throws {
        let server = try LoopbackServer { request, _ in Self.acceptAll(request) }
        defer { server.stop() }
        let directory = KitFixtures.directory()
        for version in ["1.0", "1.0", "1.1"] {
            var configuration = KitFixtures.configuration(endpoint: server.url, directory: directory)
            configuration.appVersion = version
            try PushLedger(configuration: configuration).record(.experimentExposure(experiment: "e", variant: "v"))
        }
        #expect(try await Self.ledger(server) { $0.storageDirectory = directory }.flush().accepted == 3)
        #expect(server.seen.map { Self.body($0)["app_version"] as? String } == ["1.0", "1.1"])
    }

    @Test func theCapDropsTheOldestAndCountsThem() async throws {
        let server = try LoopbackServer { request, _ in Self.acceptAll(request) }
        defer { server.stop() }
        let ledger = try Self.ledger(server) { $0.maxJournalEvents = 5 }
        let ids = try (0..<8).map { i in
            try ledger.record(
                .experimentExposure(experiment: "e", variant: "v"), at: Date(timeIntervalSinceNow: Double(i - 10)))
        }
        let result = try await ledger.flush()
        #expect(result.droppedByCap == 3 && result.accepted == 5)
        #expect(ledger.droppedCount == 3)
        #expect(
            server.seen.flatMap(Self.events).compactMap { $0["event_id"] as? String }
                == ids.suffix(5).map { $0.uuidString.lowercased() })
    }
}
