import Foundation
import Synchronization

/// One address the server listens on. Normally one daemon serves it; a certificate reload
/// starts a successor on the same socket and retires the old daemon, which finishes its
/// connections (an upload in flight completes) and is stopped once they are gone.
public final class HTTPListener: Sendable {
    private struct State {
        var current: HTTPDaemon?
        var retiring: [HTTPDaemon] = []
    }

    private let handler: any HTTPHandler
    private let state = Mutex(State())
    /// How long a retired daemon waits for its connections (set in `start`).
    private let grace = Mutex<Duration>(.zero)

    public init(handler: any HTTPHandler) {
        self.handler = handler
    }

    /// The bound port (0 before `start`).
    public var port: UInt16 { state.withLock { $0.current?.port ?? 0 } }

    /// Requests received and not yet answered, on every daemon of this address.
    public var requestsInFlight: Int {
        state.withLock { state in
            state.retiring.reduce(state.current?.requestsInFlight ?? 0) { $0 + $1.requestsInFlight }
        }
    }

    /// Connections closed for the header deadline and shed (the daemons share one guard).
    public var slowConnections: (deadline: Int, shed: Int) {
        state.withLock { $0.current?.guardian?.counts } ?? (deadline: 0, shed: 0)
    }

    public func start(
        host: String, port: UInt16, limits: HTTPServerLimits, tls: TLSCredentials?
    ) throws(HTTPServerError) {
        let daemon = HTTPDaemon(handler: handler)
        try daemon.start(host: host, port: port, limits: limits, tls: tls)
        state.withLock { $0.current = daemon }
        // A retired daemon waits this long for its connections: a new connection's headers, an
        // upload at its deadline, or a kept-alive connection's idle timeout.
        grace.withLock {
            $0 = .seconds(limits.headerDeadlineSeconds + limits.uploadDeadlineSeconds + limits.requestTimeoutSeconds)
        }
    }

    /// New connections get `tls`; those open now stay on the old daemon until they close.
    /// A failure leaves the old daemon serving.
    public func replaceCredentials(_ tls: TLSCredentials) throws(HTTPServerError) {
        let old = try state.withLock { state throws(HTTPServerError) -> HTTPDaemon in
            guard let current = state.current else { throw HTTPServerError(description: "the listener is not running") }
            state.current = try current.successor(tls: tls)
            state.retiring.append(current)
            return current
        }
        old.retire()
        let deadline = ContinuousClock.now + grace.withLock { $0 }
        Thread { [self] in
            // Past the grace, idle kept-alive connections are closed; a request is never cut.
            while old.requestsInFlight > 0 || (old.openConnections > 0 && ContinuousClock.now < deadline) {
                usleep(20_000)
            }
            let mine = state.withLock { state in
                guard let index = state.retiring.firstIndex(where: { $0 === old }) else { return false }
                state.retiring.remove(at: index)
                return true
            }
            if mine { old.stop() }
        }.start()
    }

    /// Stops accepting; open connections keep being served.
    public func quiesce() { state.withLock { $0.current?.quiesce() } }

    /// Stops every daemon of this address (after the requests in flight are answered).
    public func stop() {
        let daemons = state.withLock { state in
            defer { state = State() }
            return state.retiring + [state.current].compactMap { $0 }
        }
        // The retired daemons first: the current one's stop shuts the shared socket down.
        for daemon in daemons { daemon.stop() }
    }
}
