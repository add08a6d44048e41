import Foundation
import PushLedgerContract
import Synchronization
import Testing

@testable import IngestServer

@Suite("Ingest queue")
struct IngestQueueTests {
    private static func job(_ done: DispatchSemaphore? = nil) -> IngestJob {
        let unit = IngestUnit.failedRequest(endpoint: .telemetry, appID: "a", code: "c", message: "m", rawBody: "", receivedAt: Date())
        return IngestJob(unit: unit) { _ in done?.signal() }
    }

    @Test func refusesWhenFullAndAfterClosing() {
        let batches = Mutex<[Int]>([])
        let queue = IngestQueue(capacity: 2, maxBatch: 10, writers: 1) { jobs in
            batches.withLock { $0.append(jobs.count) }
            for job in jobs { job.completion(.success(WriteOutcome(accepted: 0, duplicates: 0))) }
        }
        #expect(queue.submit(Self.job()) == .queued)
        #expect(queue.submit(Self.job()) == .queued)
        #expect(queue.submit(Self.job()) == .full)
        #expect(queue.isSaturated)
        // Not started yet: both wait, then one writer takes them in one batch.
        queue.start()
        queue.drainAndStop()
        #expect(batches.withLock { $0 } == [2])
        #expect(queue.submit(Self.job()) == .closed)
    }

    @Test func everyJobIsCompletedBeforeTheWritersStop() {
        let done = DispatchSemaphore(value: 0)
        let queue = IngestQueue(capacity: 100, maxBatch: 7, writers: 3) { jobs in
            for job in jobs { job.completion(.failure(.unavailable)) }
        }
        queue.start()
        for _ in 0..<50 { #expect(queue.submit(Self.job(done)) == .queued) }
        queue.drainAndStop()
        for _ in 0..<50 { done.wait() }
        #expect(queue.depth == 0)
    }
}
