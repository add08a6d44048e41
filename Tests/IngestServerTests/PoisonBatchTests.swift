import Foundation
import PushLedgerContract
import TestSupport
import Testing

@testable import IngestServer

/// A unit the database refuses even alone, in a batch of other requests: the writer splits
/// the batch in halves (1 + 2·log₂ n transactions, not n), stores every other request, and
/// quarantines the poison into the failed-event store with a 400 `unstorable`, never a 500.
@Suite("Poison units")
struct PoisonBatchTests {
    /// Each job's answer by installation.
    final class Answers: @unchecked Sendable {
        private let lock = NSLock()
        private var map: [UUID: Result<WriteOutcome, WriteFailure>] = [:]
        func set(_ id: UUID, _ result: Result<WriteOutcome, WriteFailure>) { lock.withLock { map[id] = result } }
        var all: [UUID: Result<WriteOutcome, WriteFailure>] { lock.withLock { map } }
    }

    static func job(_ installation: UUID, into results: Answers) throws -> IngestJob {
        let body = Fixtures.json(
            [
                "app_id": Fixtures.app, "installation_id": installation.uuidString.lowercased(), "platform": "android",
                "events": [Fixtures.exposure()],
            ] as [String: Any])
        let validated = try TelemetryValidator.validate(
            body: body, keyAppID: Fixtures.app, receivedAt: Date(), limits: IngestLimits())
        return IngestJob(
            unit: .telemetry(validated, receivedAt: Date()), app: Fixtures.app, body: body, bytes: 2 * body.count
        ) { result in
            results.set(installation, result)
        }
    }

    @Test(arguments: [1, 2, 7, 64, 128])
    func onePoisonCostsLogarithmicTransactionsAndIsQuarantined(batch: Int) throws {
        let harness = try Harness()
        let writer = BatchWriter(
            store: harness.store, health: DatabaseHealth(), metrics: ServerMetrics(version: "test"),
            logger: harness.log.logger)
        writer.health.set(up: true)
        let installations = (0..<batch).map { _ in UUID() }
        let poison = installations[batch / 3]
        harness.store.state.withLock {
            $0.poison = poison
            $0.writes = 0
        }
        let results = Answers()
        writer.write(try installations.map { try Self.job($0, into: results) })

        let writes = harness.store.state.withLock { $0.writes }
        let depth = Int(ceil(log2(Double(batch))))
        #expect(writes <= 1 + 2 * depth + 1, "\(writes) transactions for a batch of \(batch)")  // + the quarantine row
        let answers = results.all
        #expect(answers.count == batch)
        for installation in installations where installation != poison {
            guard case .success(let outcome) = answers[installation] else {
                Issue.record("\(String(describing: answers[installation]))")
                continue
            }
            #expect(outcome.accepted == 1)
        }
        guard case .failure(.quarantined(let refusal)) = answers[poison] else {
            Issue.record("the poison got \(String(describing: answers[poison]))")
            return
        }
        #expect(refusal.status == 400 && refusal.code == "unstorable")
        #expect(refusal.message.contains("22008"))
        #expect(try harness.count("select count(*)::int8 from event_ids") == batch - 1)
        #expect(
            try harness.count(
                """
                select count(*)::int8 from failed_events where error_code = 'unstorable' and installation_id = \
                \(poison) and raw_bytes > 0 and raw_sha256 is not null
                """
            ) == 1)
    }

    @Test func theSameBytesGetTheSameAnswerOverHTTP() throws {
        let harness = try Harness()
        let poison = UUID()
        harness.store.state.withLock { $0.poison = poison }
        let body = Fixtures.json(
            [
                "app_id": Fixtures.app, "installation_id": poison.uuidString.lowercased(), "platform": "android",
                "events": [Fixtures.exposure()],
            ] as [String: Any])
        for _ in 0..<2 {
            let reply = try harness.telemetry(body)
            #expect(reply.status == 400)
            #expect(reply.json?["error"] as? String == "unstorable")
        }
        #expect(try harness.count("select count(*)::int8 from failed_events where error_code = 'unstorable'") == 2)
    }
}
