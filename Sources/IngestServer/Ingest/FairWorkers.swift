import Foundation

/// Threads for request work that costs CPU or waits (decompressing, parsing and validating a
/// body; reading the invalid-token feed), off the libmicrohttpd threads, which go back to
/// reading and answering at once. Work waits in one lane per app and the threads take the
/// apps in turn, so one app's stream of worst-case bodies delays another app's request by at
/// most one piece of work per thread, never by the whole stream. At most `threads` pieces run
/// at once: the memory bound counts them (`IngestServerConfig.memoryBound`).
final class FairWorkers: Sendable {
    private let condition = NSCondition()
    nonisolated(unsafe) private var lanes: [String: [@Sendable () -> Void]] = [:]
    nonisolated(unsafe) private var turns: [String] = []
    nonisolated(unsafe) private var waiting = 0
    nonisolated(unsafe) private var closed = false
    nonisolated(unsafe) private var running = 0
    let threads: Int
    private let name: String

    init(threads: Int, name: String) {
        self.threads = max(1, threads)
        self.name = name
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
        while let work = next() { work() }
        condition.withLock {
            running -= 1
            condition.broadcast()
        }
    }

    /// The next app's oldest work; the app goes to the back of the turns if it has more.
    private func next() -> (@Sendable () -> Void)? {
        condition.withLock {
            while turns.isEmpty {
                if closed { return nil }
                condition.wait()
            }
            let app = turns.removeFirst()
            let work = lanes[app]!.removeFirst()
            waiting -= 1
            if lanes[app]!.isEmpty {
                lanes[app] = nil
            } else {
                turns.append(app)
            }
            return work
        }
    }
}
