import Foundation

/// Threads for request work that costs CPU or waits (decompressing, parsing and validating a
/// body larger than a phone's few events; reading the invalid-token feed), off the
/// libmicrohttpd threads, which go back to reading and answering at once. Work waits in one
/// lane per app and the threads take the apps in turn; while another app has posted within
/// `recentApps`, one app holds at most all threads but one, so one app's stream of worst-case
/// bodies never makes another app's request wait for a thread. At most `threads` pieces run at
/// once: the memory bound counts them (`IngestServerConfig.memoryBound`).
final class FairWorkers: Sendable {
    private let condition = NSCondition()
    nonisolated(unsafe) private var lanes: [String: [@Sendable () -> Void]] = [:]
    nonisolated(unsafe) private var turns: [String] = []
    nonisolated(unsafe) private var waiting = 0
    nonisolated(unsafe) private var closed = false
    nonisolated(unsafe) private var running = 0
    /// Pieces of work running, per app.
    nonisolated(unsafe) private var busy: [String: Int] = [:]
    /// When each app last submitted, pruned to the apps within `recentApps`.
    nonisolated(unsafe) private var lastSubmitted: [String: ContinuousClock.Instant] = [:]
    let threads: Int
    private let name: String
    private let recentApps: Duration

    init(threads: Int, name: String, recentApps: Duration = .seconds(10)) {
        self.threads = max(1, threads)
        self.name = name
        self.recentApps = recentApps
    }

    /// Starts the threads (once).
    func start() {
        let starting = condition.withLock {
            guard running == 0 && !closed else { return false }
            running = threads
            return true
        }
        guard starting else { return }
        for index in 0..<threads {
            let thread = Thread { [self] in loop() }
            thread.name = "pushledger-\(name)-\(index)"
            thread.start()
        }
    }

    /// Pieces of work waiting for a thread.
    var depth: Int { condition.withLock { waiting } }

    /// Queues `work` in `app`'s lane; false once stopped (the caller answers itself).
    @discardableResult
    func submit(app: String, _ work: @escaping @Sendable () -> Void) -> Bool {
        condition.withLock {
            guard !closed else { return false }
            if lanes[app] == nil { turns.append(app) }
            lanes[app, default: []].append(work)
            let now = ContinuousClock.now
            if lastSubmitted.updateValue(now, forKey: app) == nil && lastSubmitted.count > 64 {
                lastSubmitted = lastSubmitted.filter { $0.value > now - recentApps }
            }
            waiting += 1
            condition.signal()
            return true
        }
    }

    /// Runs what is queued, then stops the threads and waits for them.
    func drainAndStop() {
        condition.withLock {
            closed = true
            condition.broadcast()
            while running > 0 { condition.wait() }
        }
    }

    private func loop() {
        while let (app, work) = next() {
            work()
            condition.withLock {
                busy[app]! -= 1
                if busy[app]! == 0 { busy[app] = nil }
                condition.broadcast()
            }
        }
        condition.withLock {
            running -= 1
            condition.broadcast()
        }
    }

    /// The oldest work of the first app in turn that may take a thread; that app goes to the
    /// back of the turns if it has more.
    private func next() -> (String, @Sendable () -> Void)? {
        condition.withLock {
            while true {
                if let index = turns.firstIndex(where: mayRun) {
                    let app = turns.remove(at: index)
                    let work = lanes[app]!.removeFirst()
                    waiting -= 1
                    busy[app, default: 0] += 1
                    if lanes[app]!.isEmpty {
                        lanes[app] = nil
                    } else {
                        turns.append(app)
                    }
                    return (app, work)
                }
                if closed && turns.isEmpty { return nil }
                condition.wait()
            }
        }
    }

    /// Below all threads but one, or no other app posted lately. Called with the lock held.
    private func mayRun(_ app: String) -> Bool {
        guard threads > 1, (busy[app] ?? 0) >= threads - 1 else { return true }
        let since = ContinuousClock.now - recentApps
        return !lastSubmitted.contains { $0.key != app && $0.value > since }
    }
}
