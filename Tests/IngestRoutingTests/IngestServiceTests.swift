import Foundation
import HTTPServer
import PushLedgerContract
import PushLedgerSupport
import Store
import TestSupport
import Testing

@testable import IngestServer

/// `IngestService.decide` without sockets: the answers given from headers alone.
@Suite("Ingest service decisions")
struct IngestServiceTests {
    let health = DatabaseHealth()
    let keys = KeyVerifier()
    let queue = IngestQueue(capacity: 4, maxBatch: 4, writers: 1) { jobs in
        for job in jobs { job.completion(.success(WriteOutcome(accepted: 0, duplicates: 0))) }
    }
    let service: IngestService

    init() {
        let metrics = ServerMetrics(version: "test")
        service = IngestService(
            config: IngestServerConfig(), keys: keys, queue: queue, health: health, metrics: metrics,
            logger: Logger(component: "test", minimumLevel: .error) { _ in }, feed: Self.noDatabase)
        health.set(up: true)
        keys.replace(with: TestKeys.records)
    }

    /// These tests decide from headers only; a feed read would need the database.
    static let noDatabase: @Sendable (String, InvalidTokenFeed.Query) throws(StoreError) -> InvalidTokenFeed.Page = {
        _, _ throws(StoreError) in
        throw StoreError(isConnectionProblem: true, description: "no database in this test")
    }

    @Test func theFeedNeedsASendsKeyAndAValidQuery() {
        var feed = RequestHead(
            method: "GET", path: "/v1/tokens/invalid", contentType: nil, contentEncoding: nil, contentLength: nil,
            authorization: "Bearer \(TestKeys.telemetry)")
        #expect(status(service.decide(feed)) == 403)
        feed.authorization = "Bearer \(TestKeys.sends)"
        for (name, value) in [
            ("limit", "0"), ("limit", "10001"), ("limit", "ten"), ("since", "yesterday"), ("cursor", "f1.x"),
        ] {
            feed.query = [name: value]
            #expect(status(service.decide(feed)) == 400, "\(name)=\(value)")
        }
        feed.query = ["limit": "10000", "since": "2026-11-30T10:00:00Z"]
        guard case .readBody(_, let context) = service.decide(feed) else {
            Issue.record("not read")
            return
        }
        let request = context as? FeedRequest
        #expect(request?.appID == Fixtures.app && request?.query.limit == 10_000)
        #expect(request?.query.since == RFC3339.date("2026-11-30T10:00:00Z"))
    }

    private func head(_ path: String = "/v1/telemetry", key: String = TestKeys.telemetry) -> RequestHead {
        RequestHead(
            method: "POST", path: path, contentType: "application/json", contentEncoding: nil, contentLength: 10,
            authorization: "Bearer \(key)")
    }

    private func status(_ decision: HeadDecision) -> Int? {
        if case .respond(let response) = decision { return response.status }
        return nil
    }

    @Test func aValidRequestReadsItsBodyUpToTheLimit() {
        guard case .readBody(let limit, let context) = service.decide(head()) else {
            Issue.record("expected to read the body")
            return
        }
        #expect(limit == 1 << 20)
        #expect((context as? IngestRequest)?.key.appID == Fixtures.app)
    }

    @Test func drainingAnswers503ShuttingDownAndIsNotReady() {
        service.draining.store(true, ordering: .relaxed)
        guard case .respond(let response) = service.decide(head()) else {
            Issue.record("expected an answer from the headers")
            return
        }
        #expect(response.status == 503)
        #expect(String(decoding: response.body, as: UTF8.self).contains("shutting_down"))
        #expect(response.headers.contains { $0.name == "Retry-After" })
        #expect(!service.isReady)
    }

    @Test func keysNeverLoadedAnswer503() {
        let fresh = KeyVerifier()
        let metrics = ServerMetrics(version: "test")
        let service = IngestService(
            config: IngestServerConfig(), keys: fresh, queue: queue, health: health, metrics: metrics,
            logger: Logger(component: "test", minimumLevel: .error) { _ in }, feed: Self.noDatabase)
        #expect(status(service.decide(head())) == 503)
    }

    @Test func databaseKnownDownAnswers503BeforeTheBody() {
        health.set(up: false)
        #expect(status(service.decide(head())) == 503)
        #expect(status(service.decide(head("/v1/sends", key: TestKeys.sends))) == 503)
    }
}
