import Foundation
import Synchronization
import Testing

/// Runs work on its own thread; `value()` waits for the result (tests need requests that are
/// in flight while they look at the server).
public final class Background<T: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<T, any Error>?>(nil)

    public init(_ work: @escaping @Sendable () throws -> T) {
        Thread { [self] in
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.signal()
        }.start()
    }

    public func value() throws -> T {
        done.wait()
        done.signal()
        return try result.withLock { $0! }.get()
    }

    /// True once the work finished (without waiting).
    public var isFinished: Bool { result.withLock { $0 != nil } }
}

/// Spins until `condition` holds. Not a timed assertion: the condition is bound to become true,
/// and a broken server fails the test through the surrounding request instead. Only a condition
/// still false after `limit` seconds (far beyond any slow machine) records an issue and returns,
/// so that a broken wait fails its test instead of hanging the run.
public func waitUntil(
    limit seconds: Double = 300, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) {
    guard !eventually(within: seconds, condition) else { return }
    Issue.record("a condition bound to hold did not within \(Int(seconds)) s", sourceLocation: sourceLocation)
}

/// Polls `condition` until it holds or `seconds` have passed; whether it held. For state bound
/// to come about within moments: the deadline only stops a broken implementation from hanging
/// the test, so it is generous enough for a loaded machine.
/// `every`: seconds between looks, for a condition that costs a request.
public func eventually(within seconds: Double = 60, every pause: Double = 0.002, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { return false }
        usleep(UInt32(pause * 1_000_000))
    }
    return true
}
