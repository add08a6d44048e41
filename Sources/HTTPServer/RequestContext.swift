import CMicroHTTPD
import Synchronization

/// Per-request state, owned by libmicrohttpd's `con_cls` pointer from the first call of the
/// access handler until `NOTIFY_COMPLETED`; writer threads hold it as the request's `ReplySlot`.
///
/// The lock makes "answer" and "suspend" race-free: a reply that arrives before the access
/// handler suspends the connection is simply queued by the handler, and one that arrives
/// afterwards resumes the connection, whose next access-handler call queues it.
final class RequestContext: ReplySlot, DecisionSlot, @unchecked Sendable {
    let head: RequestHead
    /// Used only to suspend and resume; the connection outlives its suspension.
    nonisolated(unsafe) private let connection: OpaquePointer
    private let state: Mutex<State>

    private struct State {
        var phase: Phase
        var body: [UInt8] = []
        var suspended = false
        var reply: HTTPResponse?
        /// When the body must be complete (see `HTTPServerLimits.uploadDeadlineSeconds`).
        var uploadDeadline = ContinuousClock.now
    }

    private enum Phase {
        /// Waiting for a `HeadDecision.later`; then the decision it put in the slot.
        case deciding(HeadDecision?)
        case reading(limit: Int, context: any Sendable)
        /// The body passed the limit: discard up to `budget` more bytes, then answer.
        case discarding(HTTPResponse, budget: Int)
        case handling
        case answered
    }

    /// What the access handler does next, on the final (body complete) call.
    enum Step {
        case handle(body: [UInt8], context: any Sendable)
        case respond(HTTPResponse)
        case wait
    }

    /// What a body chunk did.
    enum ChunkResult { case stored, discarded, abort }

    /// A request whose headers are in and whose decision is still to be made.
    init(head: RequestHead, connection: OpaquePointer) {
        self.head = head
        self.connection = connection
        state = Mutex(State(phase: .deciding(nil)))
    }

    /// Decided: read the body, at most `limit` bytes, within `uploadTime`.
    func startReading(limit: Int, context: any Sendable, uploadTime: Duration) {
        state.withLock { state in
            state.phase = .reading(limit: limit, context: context)
            state.uploadDeadline = .now + uploadTime
        }
    }

    /// Decided: answered from the headers; any body is discarded.
    func answeredFromHeaders() {
        state.withLock { $0.phase = .answered }
    }

    func decide(_ decision: HeadDecision) {
        state.withLock { state in
            guard case .deciding(.none) = state.phase else { return }
            state.phase = .deciding(decision)
            if state.suspended {
                state.suspended = false
                MHD_resume_connection(connection)
            }
        }
    }

    /// The decision if it is there (taken once), else suspends the connection until it is.
    func decisionOrSuspend() -> HeadDecision? {
        state.withLock { state in
            guard case .deciding(let decision) = state.phase else { return nil }
            if let decision {
                state.phase = .deciding(nil)
                return decision
            }
            if !state.suspended {
                state.suspended = true
                MHD_suspend_connection(connection)
            }
            return nil
        }
    }

    /// True until the decision has been taken.
    var isDeciding: Bool {
        state.withLock { state in
            if case .deciding = state.phase { return true }
            return false
        }
    }

    /// Appends a body chunk, counting bytes as they arrive. libmicrohttpd 0.9.75 refuses a
    /// reply while an upload is in progress, so past the limit the rest is discarded and
    /// `tooLarge` goes out when the upload ends — or the connection is dropped once the
    /// discarded part passes the limit again (a client streaming without end). A body still
    /// arriving after the upload deadline drops the connection (a slow client: no reply can go
    /// out mid-upload, see above).
    func append(_ chunk: UnsafeRawBufferPointer, tooLarge: () -> HTTPResponse) -> ChunkResult {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard now <= state.uploadDeadline else { return .abort }
            switch state.phase {
            case .reading(let limit, _):
                guard state.body.count + chunk.count <= limit else {
                    state.phase = .discarding(tooLarge(), budget: limit - chunk.count)
                    state.body = []
                    return .discarded
                }
                if state.body.isEmpty, let declared = head.contentLength {
                    state.body.reserveCapacity(declared)
                }
                state.body.append(contentsOf: chunk)
                return .stored
            case .discarding(let response, let budget):
                guard budget >= chunk.count else { return .abort }
                state.phase = .discarding(response, budget: budget - chunk.count)
                return .discarded
            case .handling, .answered, .deciding:
                return .discarded
            }
        }
    }

    /// Called when the body is complete (and on every call after that).
    func nextStep() -> Step {
        state.withLock { state in
            switch state.phase {
            case .reading(_, let context):
                state.phase = .handling
                let body = state.body
                state.body = []
                return .handle(body: body, context: context)
            case .discarding(let response, _):
                state.phase = .answered
                return .respond(response)
            case .handling:
                guard let reply = state.reply else { return .wait }
                state.reply = nil
                state.phase = .answered
                return .respond(reply)
            case .answered, .deciding:
                return .wait
            }
        }
    }

    /// After the handler ran: the reply if it is already there, else suspends the connection.
    func replyOrSuspend() -> HTTPResponse? {
        state.withLock { state in
            if let reply = state.reply {
                state.reply = nil
                state.phase = .answered
                return reply
            }
            state.suspended = true
            MHD_suspend_connection(connection)
            return nil
        }
    }

    func send(_ response: HTTPResponse) {
        state.withLock { state in
            guard case .handling = state.phase, state.reply == nil else { return }
            state.reply = response
            if state.suspended {
                state.suspended = false
                MHD_resume_connection(connection)
            }
        }
    }
}
