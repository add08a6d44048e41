import Foundation
import PushLedgerContract

/// Why a unit was not stored.
enum WriteFailure: Error, Equatable {
    /// Postgres is unreachable: nothing of the unit was committed (503).
    case unavailable
    /// The connection broke during COMMIT: the unit may or may not be stored (503; a retry
    /// with the same event ids is safe).
    case outcomeUnknown
    /// Any other database error (500); its detail went to the log. Only when even the
    /// quarantine row could not be written.
    case failed
    /// The unit could not be stored even alone; its request went to the failed-event store
    /// instead and is answered with this (400 `unstorable`), the same every time it is sent.
    case quarantined(EnvelopeError)
}

/// One request's validated unit waiting for a writer, with where its outcome goes.
struct IngestJob: Sendable {
    var unit: IngestUnit
    /// `?dry_run=true`: validated and de-duplicated like the others, in a transaction rolled back.
    var dryRun = false
    /// Whose share of the queue the job takes (the key's app).
    var app = ""
    /// The request's body as decoded: what the failed-event store keeps (bounded) if the unit
    /// cannot be stored.
    var body: [UInt8] = []
    /// What the job holds in memory, about: counted against the queue's and the app's byte bounds.
    var bytes = 0
    var completion: @Sendable (Result<WriteOutcome, WriteFailure>) -> Void
}

/// A bounded queue of jobs drained by writer threads, fair between apps. Each app has its own
/// lane, holding at most `share` jobs, so one app's flood fills its lane (429 for that app) and
/// never the whole queue. A writer takes jobs round-robin over the lanes, one job an app a turn,
/// up to `maxBatch` jobs and `maxEvents` events (at least one job), and stores them in one
/// transaction; a request gets its answer only after that commit. An app's jobs are in at most
/// `appWriters` transactions at once (default: one writer fewer than there are) while another
/// app has posted within `recentApps`, so however much one app sends, a writer is left for the
/// others: another app's request waits for a writer only while the others are busy with other
/// apps, never behind a flood's transaction. An app alone (a server of one app, or the first
/// request of another app in a while) uses every writer: the limit costs nothing until there
/// is someone to be fair to.
///
/// Commit grouping comes from the writers being busy: a free writer takes every job waiting (up
/// to a batch), so the requests that arrived while the writers were in their transactions go
/// together in the next one, and a request that finds a writer free is written at once. A
/// writer is never held back to make a fuller batch: a batch costs Postgres one statement and
/// a WAL flush, less than a writer left idle while requests wait (docs/performance.md has the
/// measurements).
final class IngestQueue: Sendable {
    private let condition = NSCondition()
    nonisolated(unsafe) private var lanes: [String: [IngestJob]] = [:]
    /// Bytes (`IngestJob.bytes`) of the jobs waiting in each lane; and of all jobs waiting or
    /// being written (released at their commit, so the bound covers the writers' batches too).
    nonisolated(unsafe) private var laneBytes: [String: Int] = [:]
    nonisolated(unsafe) private var queuedBytes = 0
    /// Apps with jobs waiting, in turn order.
    nonisolated(unsafe) private var turns: [String] = []
    nonisolated(unsafe) private var count = 0
    nonisolated(unsafe) private var closed = false
    nonisolated(unsafe) private var runningWriters = 0
    /// Transactions in progress that hold jobs of the app.
    nonisolated(unsafe) private var writing: [String: Int] = [:]
    /// When each app last submitted, pruned to the apps within `recentApps`.
    nonisolated(unsafe) private var lastSubmitted: [String: ContinuousClock.Instant] = [:]
    /// How long an app counts as present for the writer limit after its last request.
    let recentApps: Duration
    let capacity: Int
    /// Jobs of one app waiting at most.
    let share: Int
    /// Bytes of jobs waiting or being written at most (a job is always taken when nothing
    /// waits), and of one app's waiting jobs: the same fraction of it as `share` is of `capacity`.
    let maxBytes: Int
    let shareBytes: Int
    private let maxBatch: Int
    private let maxEvents: Int
    private let writers: Int
    /// Transactions of one app at once at most.
    let appWriters: Int
    private let write: @Sendable (_ jobs: [IngestJob], _ waited: Bool) -> Void
    private let idle: @Sendable () -> Void
    private let idleAfter: TimeInterval

    /// `write` stores one batch and completes every job in it; it runs on the writer threads.
    /// `share` defaults to the whole capacity (no per-app bound); `appWriters` to
    /// `IngestQueue.defaultAppWriters(writers)`, at most `writers`.
    convenience init(
        capacity: Int, share: Int? = nil, maxBytes: Int = .max, maxBatch: Int, maxEvents: Int = .max, writers: Int,
        appWriters: Int? = nil,
        recentApps: Duration = .seconds(10), write: @escaping @Sendable ([IngestJob]) -> Void
    ) {
        self.init(
            capacity: capacity, share: share, maxBytes: maxBytes, maxBatch: maxBatch, maxEvents: maxEvents,
            writers: writers, appWriters: appWriters, recentApps: recentApps, write: { jobs, _ in write(jobs) },
            idle: {})
    }

    /// `write` also hears whether its writer `waited` for the batch (nothing was queued when it
    /// looked) or found it queued (the writers were busy). `idle` runs on a writer thread once
    /// the queue has stayed empty `idleAfter` seconds since that writer's last batch (and as it
    /// exits).
    init(
        capacity: Int, share: Int? = nil, maxBytes: Int = .max, maxBatch: Int, maxEvents: Int = .max, writers: Int,
        appWriters: Int? = nil,
        recentApps: Duration = .seconds(10), write: @escaping @Sendable (_ jobs: [IngestJob], _ waited: Bool) -> Void,
        idle: @escaping @Sendable () -> Void, idleAfter: TimeInterval = 0.1
    ) {
        self.capacity = max(1, capacity)
        self.share = max(1, min(share ?? capacity, capacity))
        self.maxBytes = max(1, maxBytes)
        let (scaled, overflow) = self.maxBytes.multipliedReportingOverflow(by: self.share)
        self.shareBytes = overflow ? self.maxBytes / self.capacity * self.share : scaled / self.capacity
        self.maxBatch = max(1, maxBatch)
        self.maxEvents = max(1, maxEvents)
        self.writers = max(1, writers)
        self.appWriters = max(1, min(appWriters ?? Self.defaultAppWriters(writers), self.writers))
        self.recentApps = recentApps
        self.write = write
        self.idle = idle
        self.idleAfter = idleAfter
    }

    /// One writer kept for the other apps (none with a single writer).
    static func defaultAppWriters(_ writers: Int) -> Int { max(1, writers - 1) }

    /// Starts the writer threads (once).
    func start() {
        let starting = condition.withLock {
            guard runningWriters == 0 && !closed else { return false }
            runningWriters = writers
            return true
        }
        guard starting else { return }
        for index in 0..<writers {
            let thread = Thread { [self] in writerLoop() }
            thread.name = "pushledger-writer-\(index)"
            thread.start()
        }
    }

    /// Jobs waiting for a writer.
    var depth: Int { condition.withLock { count } }

    var isSaturated: Bool { depth >= capacity }

    /// Bytes held by jobs waiting or being written.
    var bytes: Int { condition.withLock { queuedBytes } }

    /// True when `app`'s lane is full, in jobs or bytes (its requests answer 429 until it drains).
    func isShareFull(_ app: String) -> Bool {
        condition.withLock { (lanes[app]?.count ?? 0) >= share || (laneBytes[app] ?? 0) >= shareBytes }
    }

    enum Submission { case queued, full, shareFull, closed }

    /// Adds a job unless the queue (429) or the job's app lane (429 for that app) is full, or
    /// the queue is closed for shutdown (503).
    func submit(_ job: IngestJob) -> Submission {
        condition.withLock {
            guard !closed else { return .closed }
            guard count < capacity, count == 0 || queuedBytes + job.bytes <= maxBytes else { return .full }
            let waiting = lanes[job.app]?.count ?? 0
            guard waiting < share, waiting == 0 || (laneBytes[job.app] ?? 0) + job.bytes <= shareBytes else {
                return .shareFull
            }
            if waiting == 0 { turns.append(job.app) }
            noteSubmission(job.app)
            lanes[job.app, default: []].append(job)
            laneBytes[job.app, default: 0] += job.bytes
            queuedBytes += job.bytes
            count += 1
            condition.signal()
            return .queued
        }
    }

    /// Refuses new jobs, lets the writers store every queued one, and waits for them to exit.
    func drainAndStop() {
        condition.withLock {
            closed = true
            condition.broadcast()
            while runningWriters > 0 { condition.wait() }
        }
    }

    private func writerLoop() {
        var idled = false
        var next = condition.withLock { nextBatch(idled: idled) }
        while let step = next {
            switch step {
            case .batch(let jobs, let waited):
                write(jobs, waited)
                idled = false
                next = condition.withLock {
                    finished(jobs)
                    return nextBatch(idled: idled)
                }
            case .idle:
                idle()
                idled = true
                next = condition.withLock { nextBatch(idled: idled) }
            }
        }
        idle()
        condition.withLock {
            runningWriters -= 1
            condition.broadcast()
        }
    }

    /// The apps of a stored batch may take another writer: wake the writers waiting for that.
    private func finished(_ jobs: [IngestJob]) {
        for app in Set(jobs.map(\.app)) {
            writing[app]! -= 1
            if writing[app]! == 0 { writing[app] = nil }
        }
        for job in jobs {
            queuedBytes -= job.bytes
        }
        condition.broadcast()
    }

    /// What a writer does next: a batch (`waited`: it found none at first), or its idle work.
    private enum Step {
        case batch([IngestJob], waited: Bool)
        case idle
    }

    /// Blocks until jobs of an app under its writer limit are waiting, or (unless the writer
    /// `idled` since its last batch) until the queue has stayed empty `idleAfter`; nil once
    /// closed and empty. Called with the lock held.
    private func nextBatch(idled: Bool) -> Step? {
        var waited = false
        while true {
            if count == 0 && closed { return nil }
            let batch = count > 0 ? takeRoundRobin() : []
            if !batch.isEmpty { return .batch(batch, waited: waited) }
            if !idled && count == 0 && !waited {
                waited = true
                if !condition.wait(until: Date(timeIntervalSinceNow: idleAfter)) && count == 0 && !closed {
                    return .idle
                }
                continue
            }
            waited = true
            condition.wait()
        }
    }

    /// Whether a new transaction may take `app`'s jobs: the app is below its writer limit, or no
    /// other app is present. Called with the lock held.
    private func mayWrite(_ app: String) -> Bool {
        guard (writing[app] ?? 0) >= appWriters else { return true }
        let since = ContinuousClock.now - recentApps
        return !lastSubmitted.contains { $0.key != app && $0.value > since }
    }

    /// Records `app` as present; forgets apps gone quiet once the table grows. Called with the
    /// lock held.
    private func noteSubmission(_ app: String) {
        let now = ContinuousClock.now
        if lastSubmitted.updateValue(now, forKey: app) == nil && lastSubmitted.count > 64 {
            lastSubmitted = lastSubmitted.filter { $0.value > now - recentApps }
        }
    }

    /// One job from each app in turn until the batch is full, skipping apps at their writer
    /// limit; an app that still has jobs goes to the back of the turns. Called with the lock held.
    private func takeRoundRobin() -> [IngestJob] {
        var batch: [IngestJob] = []
        var events = 0
        var apps: Set<String> = []
        var skipped: [String] = []
        while batch.count < maxBatch, let app = turns.first {
            guard apps.contains(app) || mayWrite(app) else {
                skipped.append(turns.removeFirst())
                continue
            }
            let job = lanes[app]![0]
            guard batch.isEmpty || events + job.unit.eventCount <= maxEvents else { break }
            if apps.insert(app).inserted { writing[app, default: 0] += 1 }
            batch.append(job)
            events += job.unit.eventCount
            count -= 1
            turns.removeFirst()
            lanes[app]!.removeFirst()
            laneBytes[app]! -= job.bytes
            if lanes[app]!.isEmpty {
                lanes[app] = nil
                laneBytes[app] = nil
            } else {
                turns.append(app)
            }
        }
        // Skipped apps keep their place ahead of the ones served.
        turns.insert(contentsOf: skipped, at: 0)
        return batch
    }
}
