import Foundation
import PushLedgerContract
import Store
import Synchronization
import TestSupport
import Testing

@testable import IngestServer

/// Fairness between apps in the write queue, and the per-key token bucket: pure, no database.
@Suite("Fair queue and rate limits")
struct FairQueueTests {
    private static func job(_ app: String, _ tag: Int) -> IngestJob {
        let unit = IngestUnit.failedRequest(
            endpoint: .sends, appID: app, code: "c", message: "\(tag)", rawBody: "", receivedAt: Date())
        return IngestJob(unit: unit, app: app) { _ in }
    }

    /// One writer stores everything queued before it started.
    private static func drain(_ queue: IngestQueue) {
        queue.start()
        queue.drainAndStop()
    }

    /// A queue whose one writer records each batch as app + tag names.
    private static func recordingQueue(
        capacity: Int, share: Int, maxBatch: Int, maxEvents: Int = .max
    ) -> (IngestQueue, Batches) {
        let batches = Batches()
        let queue = IngestQueue(capacity: capacity, share: share, maxBatch: maxBatch, maxEvents: maxEvents, writers: 1)
        { jobs in
            let names = jobs.map { job -> String in
                guard case .failedRequest(_, let app, _, let message, _, _, _) = job.unit else { return "?" }
                return "\(app)\(message)"
            }
            batches.names.withLock { $0.append(names) }
            for job in jobs { job.completion(.success(WriteOutcome(accepted: 0, duplicates: 0))) }
        }
        return (queue, batches)
    }

    @Test func aFloodingAppFillsOnlyItsShare() {
        let (queue, batches) = Self.recordingQueue(capacity: 10, share: 4, maxBatch: 100)
        for i in 0..<4 { #expect(queue.submit(Self.job("a", i)) == .queued) }
        #expect(queue.submit(Self.job("a", 4)) == .shareFull)
        #expect(queue.isShareFull("a"))
        #expect(!queue.isShareFull("b"))
        // Another app still gets in, up to its own share and the whole capacity.
        for i in 0..<4 { #expect(queue.submit(Self.job("b", i)) == .queued) }
        #expect(queue.submit(Self.job("c", 0)) == .queued)
        #expect(queue.submit(Self.job("c", 1)) == .queued)
        #expect(queue.submit(Self.job("d", 0)) == .full)
        #expect(queue.depth == 10)
        Self.drain(queue)
        #expect(batches.names.withLock { $0 }.flatMap { $0 }.count == 10)
    }

    @Test func writersTakeOneJobAnAppInTurn() {
        let (queue, batches) = Self.recordingQueue(capacity: 20, share: 10, maxBatch: 4)
        for i in 0..<6 { _ = queue.submit(Self.job("a", i)) }
        _ = queue.submit(Self.job("b", 0))
        _ = queue.submit(Self.job("c", 0))
        _ = queue.submit(Self.job("b", 1))
        Self.drain(queue)
        // b's jobs go in the first batch although six of a's were queued before them.
        #expect(batches.names.withLock { $0 } == [["a0", "b0", "c0", "a1"], ["b1", "a2", "a3", "a4"], ["a5"]])
    }

    @Test func aBatchStopsAtTheEventBoundButTakesAtLeastOneJob() {
        let (queue, batches) = Self.recordingQueue(capacity: 20, share: 20, maxBatch: 100, maxEvents: 3)
        for i in 0..<7 { _ = queue.submit(Self.job("a", i)) }
        Self.drain(queue)
        #expect(batches.names.withLock { $0 }.map(\.count) == [3, 3, 1])
        let (single, singles) = Self.recordingQueue(capacity: 5, share: 5, maxBatch: 100, maxEvents: 0)
        _ = single.submit(Self.job("a", 0))
        _ = single.submit(Self.job("a", 1))
        Self.drain(single)
        #expect(singles.names.withLock { $0 }.map(\.count) == [1, 1])
    }

    /// While every writer an app may hold is busy with it, a free writer takes only the other
    /// apps' jobs, even when the busy app's were queued first.
    @Test func aFloodingAppLeavesAWriterForTheOthers() throws {
        let release = DispatchSemaphore(value: 0), entered = DispatchSemaphore(value: 0)
        let batches = Batches()
        let queue = IngestQueue(capacity: 20, share: 10, maxBatch: 4, writers: 2) { jobs in
            let names = jobs.map(\.app)
            batches.names.withLock { $0.append(names) }
            if names.first == "a" && batches.names.withLock({ $0.count }) == 1 {
                entered.signal()
                release.wait()
            }
            for job in jobs { job.completion(.success(WriteOutcome(accepted: 0, duplicates: 0))) }
        }
        #expect(queue.appWriters == 1)
        queue.start()
        // b posted a moment ago: the limit holds while a floods.
        _ = queue.submit(Self.job("b", 9))
        #expect(eventually { batches.names.withLock { $0.count } == 1 })
        batches.names.withLock { $0 = [] }
        _ = queue.submit(Self.job("a", 0))
        entered.wait()
        // a holds its one writer: the other writer passes over a's queued jobs to b's.
        for i in 1..<4 { _ = queue.submit(Self.job("a", i)) }
        _ = queue.submit(Self.job("b", 0))
        let served = eventually { batches.names.withLock { $0.count } == 2 }
        #expect(served)
        #expect(batches.names.withLock { $0 } == [["a"], ["b"]])
        release.signal()
        queue.drainAndStop()
        #expect(batches.names.withLock { $0 } == [["a"], ["b"], ["a", "a", "a"]])
        // The limit is at least one writer and at most all of them.
        let noop: @Sendable ([IngestJob]) -> Void = { _ in }
        #expect(IngestQueue(capacity: 1, maxBatch: 1, writers: 1, write: noop).appWriters == 1)
        #expect(IngestQueue(capacity: 1, maxBatch: 1, writers: 4, write: noop).appWriters == 3)
        #expect(IngestQueue(capacity: 1, maxBatch: 1, writers: 4, appWriters: 9, write: noop).appWriters == 4)
    }

    @Test func anAppAloneUsesEveryWriter() throws {
        let release = DispatchSemaphore(value: 0), entered = DispatchSemaphore(value: 0)
        let batches = Batches()
        let queue = IngestQueue(capacity: 20, share: 10, maxBatch: 4, writers: 2) { jobs in
            batches.names.withLock { $0.append(jobs.map(\.app)) }
            entered.signal()
            release.wait()
            for job in jobs { job.completion(.success(WriteOutcome(accepted: 0, duplicates: 0))) }
        }
        queue.start()
        _ = queue.submit(Self.job("a", 0))
        entered.wait()
        // No other app present: the second writer takes a's next jobs while the first is busy.
        for i in 1..<3 { _ = queue.submit(Self.job("a", i)) }
        entered.wait()
        #expect(batches.names.withLock { $0.count } == 2)
        for _ in 0..<3 { release.signal() }
        queue.drainAndStop()
        #expect(batches.names.withLock { $0.joined().count } == 3)
    }

    /// A queue of two writers that records each batch as app + tag names and holds every
    /// batch until `release` is signalled; `entered` is signalled as each batch starts.
    private static func holdingQueue(
        maxBatch: Int
    ) -> (IngestQueue, Batches, release: DispatchSemaphore, entered: DispatchSemaphore) {
        let release = DispatchSemaphore(value: 0), entered = DispatchSemaphore(value: 0)
        let batches = Batches()
        let queue = IngestQueue(capacity: 20, share: 20, maxBatch: maxBatch, writers: 2) { jobs in
            batches.names.withLock {
                $0.append(
                    jobs.map { job in
                        switch job.unit {
                        case .failedRequest(_, let app, _, let message, _, _, _): "\(app)\(message)"
                        case .sends(_, let app, _): "\(app)-\(job.unit.eventCount)"
                        case .telemetry: "?"
                        }
                    })
            }
            entered.signal()
            release.wait()
            for job in jobs { job.completion(.success(WriteOutcome(accepted: 0, duplicates: 0))) }
        }
        return (queue, batches, release, entered)
    }

    /// Commit grouping comes from busy writers: a job that finds a writer free is written at
    /// once, even beside a transaction of its own app; the jobs that arrive while every writer
    /// is busy go together in the next free writer's transaction.
    @Test func aFreeWriterTakesAJobAtOnceAndWhatWaitsForABusyOneGoesTogether() {
        let (queue, batches, release, entered) = Self.holdingQueue(maxBatch: 5)
        for i in 0..<3 { _ = queue.submit(Self.job("a", i)) }
        queue.start()
        entered.wait()
        #expect(batches.names.withLock { $0 } == [["a0", "a1", "a2"]])
        // One job against three in progress: the free writer takes it at once.
        _ = queue.submit(Self.job("a", 3))
        #expect(entered.wait(timeout: .now() + 10) == .success)
        #expect(batches.names.withLock { $0 } == [["a0", "a1", "a2"], ["a3"]])
        // Both writers busy: these wait, and the first writer free takes them all.
        for i in 4..<7 { _ = queue.submit(Self.job("a", i)) }
        #expect(queue.depth == 3)
        release.signal()
        entered.wait()
        #expect(batches.names.withLock { $0.last } == ["a4", "a5", "a6"])
        for _ in 0..<3 { release.signal() }
        queue.drainAndStop()
        #expect(batches.names.withLock { $0.joined().count } == 7)
    }

    /// Taking `count` at `now` is refused with a wait of `seconds`.
    private static func expectRefused(
        _ bucket: inout TokenBucket, _ count: Double, now: Double, waiting seconds: Double
    ) throws {
        let refused = bucket.take(count, now: now)
        let wait = try #require(refused)
        #expect(abs(wait - seconds) < 1e-9, "waits \(wait) s")
    }

    @Test func tokenBucketRefusesPastTheBurstAndSaysHowLongToWait() throws {
        var bucket = TokenBucket(rate: 100, burst: 200, now: 0)
        #expect(bucket.take(150, now: 0) == nil)
        // 50 left: 120 more need 70 tokens, 0.7 s at 100 a second.
        try Self.expectRefused(&bucket, 120, now: 0, waiting: 0.7)
        #expect(bucket.take(120, now: 0.69) != nil)
        #expect(bucket.take(120, now: 0.7) == nil)
        // Refilling stops at the burst.
        #expect(bucket.take(201, now: 100) == nil)
        #expect(bucket.tokens == -1)
    }

    @Test func aRequestLargerThanTheBurstPassesOnAFullBucketAndOwesTheRest() throws {
        var bucket = TokenBucket(rate: 10, burst: 20, now: 0)
        #expect(bucket.take(50, now: 0) == nil)
        // It owes 30: the next single event waits until 31 tokens flowed in.
        try Self.expectRefused(&bucket, 1, now: 0, waiting: 3.1)
        #expect(bucket.take(50, now: 3.0) != nil)
        #expect(bucket.take(50, now: 5.0) == nil)
    }

    @Test func aChangedLimitKeepsTheBucketWithinTheNewBurst() {
        var bucket = TokenBucket(rate: 10, burst: 100, now: 0)
        bucket.setLimit(rate: 1, burst: 5, now: 0)
        #expect(bucket.tokens == 5)
        #expect(bucket.take(5, now: 0) == nil)
        #expect(bucket.take(1, now: 0.5) != nil)
        #expect(bucket.take(1, now: 1) == nil)
    }

    @Test func theLimiterAppliesPerKeyAndRoundsRetryAfterUp() {
        let now = Mutex(0.0)
        let limiter = KeyRateLimiter(clock: { now.withLock { $0 } })
        let limited = KeyRecord(
            id: "k1", hash: [], appID: "a", scope: "sends", revoked: false,
            rateLimit: .init(eventsPerSecond: 20, burst: 40))
        let other = KeyRecord(
            id: "k2", hash: [], appID: "a", scope: "sends", revoked: false,
            rateLimit: .init(eventsPerSecond: 20, burst: 40))
        let free = KeyRecord(id: "k3", hash: [], appID: "a", scope: "sends", revoked: false)
        #expect(limiter.admit(key: limited, events: 40) == nil)
        // 60 need a full bucket (the burst, 40) at 20 a second: 2 s.
        #expect(limiter.admit(key: limited, events: 60) == 2)
        #expect(limiter.admit(key: limited, events: 1) == 1)
        #expect(limiter.admit(key: other, events: 40) == nil)
        for _ in 0..<100 { #expect(limiter.admit(key: free, events: 10_000) == nil) }
        now.withLock { $0 = 2 }
        #expect(limiter.admit(key: limited, events: 40) == nil)
        // A limit raised by a key reload applies to the same bucket at once.
        var raised = limited
        raised.rateLimit = .init(eventsPerSecond: 1_000, burst: 1_000)
        now.withLock { $0 = 2.1 }
        #expect(limiter.admit(key: raised, events: 100) == 1)
        now.withLock { $0 = 2.3 }
        #expect(limiter.admit(key: raised, events: 100) == nil)
    }
}

/// The batches a test queue's writer stored, as app + tag names.
private final class Batches: Sendable {
    let names = Mutex<[[String]]>([])
}
