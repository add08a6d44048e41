import Dispatch
import Foundation
import Synchronization

/// Dispatch signal sources for a set of signals, with the count of signals seen so far (also for
/// other long-running commands, such as `pushledger rollup --follow`).
public final class SignalWatcher {
    private let sources: [any DispatchSourceSignal]

    private final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    /// The default actions are ignored so the process outlives the signal; `handler` runs on a
    /// global queue.
    public init(signals: [Int32], handler: @escaping @Sendable (Int32, Int) -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            sources.append(source)
        }
        self.sources = sources
        let seen = Count()
        for (number, source) in zip(signals, sources) {
            source.setEventHandler { handler(number, seen.value.add(1, ordering: .relaxed).newValue) }
            source.resume()
        }
        // libdispatch installs its own handler for the signal later, on its manager thread; a
        // signal that comes before that meets SIG_IGN and is lost. Wait (briefly) until it's there.
        for number in signals {
            for _ in 0..<2_000 where Self.isIgnored(number) { usleep(1_000) }
        }
    }

    private static func isIgnored(_ number: Int32) -> Bool {
        var action = sigaction()
        sigaction(number, nil, &action)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
            == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    public func cancel() {
        for source in sources { source.cancel() }
    }
}
