import Foundation

/// A bounded hand-off between the generating thread and the posting threads, with the
/// run's counters (all under one condition lock).
final class RunnerQueue: @unchecked Sendable {
    enum Job {
        case telemetry(TelemetryBatch)
        case sends(SendsBatch)

        var eventCount: Int {
            switch self {
            case .telemetry(let b): b.eventCount
            case .sends(let b): b.eventCount
            }
        }
    }

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var inFlight = 0
    private var closed = false
    private let capacity: Int

    // counters (read under the lock via `snapshot()`)
    private(set) var counters = RunSummary()
    private(set) var failure: SimulationError?

    init(capacity: Int) { self.capacity = capacity }

    /// Waits while the queue is full; after a failure jobs are dropped (the run is over).
    func push(_ job: Job) {
        condition.lock()
        while jobs.count - head >= capacity && failure == nil { condition.wait() }
        if failure == nil { jobs.append(job) }
        condition.broadcast()
        condition.unlock()
    }

    /// The next job, or nil when the queue is closed and empty (or the run failed).
    func pop() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && !closed && failure == nil { condition.wait() }
        guard failure == nil, head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head > 1_024 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        inFlight += 1
        condition.broadcast()
        return job
    }

    /// Waits until every pushed job is done (a barrier between telemetry and sends).
    func drain() {
        condition.lock()
        while (head < jobs.count || inFlight > 0) && failure == nil { condition.wait() }
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    func done(_ job: Job, accepted: Int, duplicates: Int, rejected: Int) {
        update {
            $0.inFlight -= 1
            switch job {
            case .telemetry: $0.counters.telemetryEventsPosted += job.eventCount
            case .sends: $0.counters.sendsPosted += job.eventCount
            }
            $0.counters.requests += 1
            $0.counters.accepted += accepted
            $0.counters.duplicates += duplicates
            $0.counters.rejected += rejected
        }
    }

    func fail(_ error: SimulationError) {
        update {
            $0.inFlight -= 1
            if $0.failure == nil { $0.failure = error }
        }
    }

    func noteRetry() { update { $0.counters.retries += 1 } }

    func noteGenerated(installations: Int, events: Int) {
        update {
            $0.counters.installationsGenerated += installations
            $0.counters.eventsGenerated += events
        }
    }

    func snapshot() -> (RunSummary, SimulationError?) {
        condition.lock()
        defer { condition.unlock() }
        return (counters, failure)
    }

    private func update(_ body: (RunnerQueue) -> Void) {
        condition.lock()
        body(self)
        condition.broadcast()
        condition.unlock()
    }
}

/// What a run posted and what the server answered.
public struct RunSummary: Sendable, Equatable {
    public var installationsGenerated = 0
    public var eventsGenerated = 0
    public var telemetryEventsPosted = 0
    public var sendsPosted = 0
    public var requests = 0
    public var retries = 0
    /// Sums of the server's per-request answers.
    public var accepted = 0
    public var duplicates = 0
    public var rejected = 0
    public var seconds = 0.0

    public var eventsPosted: Int { telemetryEventsPosted + sendsPosted }

    public var description: String {
        let rate = seconds > 0 ? Double(eventsPosted) / seconds : 0
        return "posted \(telemetryEventsPosted) telemetry events and \(sendsPosted) sends in \(requests) requests "
            + "(\(retries) retries) in \(String(format: "%.1f", seconds)) s, \(Int(rate)) events/s; server: "
            + "accepted \(accepted), duplicates \(duplicates), rejected \(rejected)"
    }
}
