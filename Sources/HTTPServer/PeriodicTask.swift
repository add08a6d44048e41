import Foundation

/// Runs `work` on its own thread every `interval` seconds until stopped; `wake()` runs it now.
/// Used for the key-table refresh and the database reconnect probe.
public final class PeriodicTask: Sendable {
    private let condition = NSCondition()
    nonisolated(unsafe) private var stopped = false
    nonisolated(unsafe) private var woken = false
    nonisolated(unsafe) private var finished = false
    private let interval: TimeInterval
    private let work: @Sendable () -> Void

    public init(name: String, interval: TimeInterval, work: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.work = work
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    public func wake() {
        condition.withLock {
            woken = true
            condition.signal()
        }
    }

    /// Stops the loop and waits for a running `work` to finish.
    public func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
            while !finished { condition.wait() }
        }
    }

    private func loop() {
        while true {
            let proceed = condition.withLock {
                let deadline = Date(timeIntervalSinceNow: interval)
                while !stopped && !woken && condition.wait(until: deadline) {}
                woken = false
                return !stopped
            }
            guard proceed else { break }
            work()
        }
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }
}
