import Foundation
import PushLedgerContract
import Synchronization
import TestSupport
import Testing

@testable import IngestServer

@Suite("Ingest queue")
struct IngestQueueTests {
    private static func job(_ done: DispatchSemaphore? = nil) -> IngestJob {
        let unit = IngestUnit.failedRequest(
            endpoint: .telemetry, appID: "a", code: "c", message: "m", rawBody: "", receivedAt: Date())
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

    /// A writer says whether it waited for its batch (light load) or found it queued behind a
    /// busy writer, and does its idle work once the queue has stayed empty, and as it exits.
    @Test func writersTellWaitedForBatchesFromQueuedOnesAndIdleOnceEmpty() {
        let release = DispatchSemaphore(value: 0), entered = DispatchSemaphore(value: 0)
        let log = Mutex<[String]>([])
        let queue = IngestQueue(
            capacity: 10, maxBatch: 10, writers: 1,
            write: { jobs, waited in
                log.withLock { $0.append("\(jobs.count) \(waited ? "waited" : "queued")") }
                if jobs.count == 1 && log.withLock({ $0.count }) == 1 {
                    entered.signal()
                    release.wait()
                }
                for job in jobs { job.completion(.success(WriteOutcome(accepted: 0, duplicates: 0))) }
            },
            idle: { log.withLock { $0.append("idle") } }, idleAfter: 0.05)
        queue.start()
        // Idle once at start (nothing was written yet), then it waits without a deadline.
        #expect(eventually { log.withLock { $0 } == ["idle"] })
        log.withLock { $0 = [] }
        #expect(queue.submit(Self.job()) == .queued)
        entered.wait()
        // Two more arrive while the writer is busy: one batch taken without waiting.
        #expect(queue.submit(Self.job()) == .queued)
        #expect(queue.submit(Self.job()) == .queued)
        release.signal()
        #expect(eventually { log.withLock { $0 } == ["1 waited", "2 queued", "idle"] })
        Thread.sleep(forTimeInterval: 0.2)
        #expect(log.withLock { $0 } == ["1 waited", "2 queued", "idle"], "one idle per quiet spell")
        queue.drainAndStop()
        #expect(log.withLock { $0 } == ["1 waited", "2 queued", "idle", "idle"], "and one as it exits")
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

    @Test func isBoundedInBytesAsWellAsRequests() {
        func job(app: String, bytes: Int) -> IngestJob {
            let unit = IngestUnit.failedRequest(
                endpoint: .telemetry, appID: app, code: "c", message: "m", rawBody: "", receivedAt: Date())
            return IngestJob(unit: unit, app: app, bytes: bytes) { _ in }
        }
        // 1,000 bytes in all; an app's share is 4 of 10 requests, so 400 bytes.
        let queue = IngestQueue(capacity: 10, share: 4, maxBytes: 1_000, maxBatch: 10, writers: 1) { _ in }
        #expect(queue.shareBytes == 400)
        #expect(queue.submit(job(app: "a", bytes: 5_000)) == .queued)  // alone, a job is always taken
        #expect(queue.submit(job(app: "b", bytes: 1)) == .full)
        let other = IngestQueue(capacity: 10, share: 4, maxBytes: 1_000, maxBatch: 10, writers: 1) { _ in }
        #expect(other.submit(job(app: "a", bytes: 300)) == .queued)
        #expect(other.submit(job(app: "a", bytes: 101)) == .shareFull)  // 401 bytes of one app
        #expect(other.isShareFull("a") == false)
        #expect(other.submit(job(app: "a", bytes: 100)) == .queued)
        #expect(other.isShareFull("a"))
        #expect(other.submit(job(app: "b", bytes: 400)) == .queued)
        #expect(other.submit(job(app: "c", bytes: 300)) == .full)  // 1,100 bytes in all
        #expect(other.bytes == 800)
    }
}
