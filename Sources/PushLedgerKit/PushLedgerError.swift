import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What can go wrong, as values: `description` is safe to show and log (never the key, never a token).
public enum PushLedgerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration would make every batch fail (e.g. an `appID` the contract refuses).
    case invalidConfiguration(String)
    /// `record` refused the event: the server would reject it with this contract code.
    case invalidEvent(code: String, message: String)
    /// The journal's storage failed; the event was not recorded (or the files were not removed).
    case storage(operation: String, path: String, detail: String)
    /// `flush()` returned with events still journalled; they are kept for a later flush.
    case flushIncomplete(remaining: Int, reason: FlushFailure, partial: FlushResult)

    static func journal(operation: String, path: String, errno code: Int32) -> PushLedgerError {
        .storage(operation: operation, path: path, detail: String(cString: strerror(code)))
    }

    public var description: String {
        switch self {
        case .invalidConfiguration(let why): "PushLedger configuration: \(why)"
        case .invalidEvent(let code, let message): "event refused (\(code)): \(message)"
        case .storage(let operation, let path, let detail): "journal \(operation) failed at \(path): \(detail)"
        case .flushIncomplete(let remaining, let reason, _): "\(remaining) events still journalled: \(reason)"
        }
    }
}

/// Why a flush stopped before the journal was empty. Every case keeps the events.
public enum FlushFailure: Sendable, Equatable, CustomStringConvertible {
    /// 401/403: the key is unknown, revoked or of the wrong scope or app (a new key fixes it).
    case unauthorized(status: Int, code: String)
    /// 429, 503, other 5xx: retried with backoff, still failing.
    case unavailable(status: Int, code: String)
    /// No answer: connection refused, timeout, TLS …
    case network(String)
    /// An answer the SDK cannot act on (404, 415 …): a wrong endpoint URL, most likely.
    case unexpected(status: Int, code: String)
    /// Another process held the journal's flush lock for the whole wait.
    case busy

    public var description: String {
        switch self {
        case .unauthorized(let status, let code): "HTTP \(status) \(code): check the telemetry key"
        case .unavailable(let status, let code): "HTTP \(status) \(code): server unavailable, will retry"
        case .network(let why): "network: \(why)"
        case .unexpected(let status, let code): "HTTP \(status) \(code): check the endpoint URL"
        case .busy: "another process is flushing this journal"
        }
    }
}

/// What one `flush()` did.
public struct FlushResult: Sendable, Equatable {
    /// Events newly stored by the server.
    public var accepted = 0
    /// Events the server already had (an earlier attempt's answer was lost): stored once.
    public var duplicates = 0
    /// Events the server refused; dropped from the journal, never retried.
    public var rejected: [RejectedEvent] = []
    /// Events dropped by the journal's size cap during this flush.
    public var droppedByCap = 0

    public init() {}
}

/// One event the server refused, with the contract's code and the server's message.
public struct RejectedEvent: Sendable, Equatable {
    public var eventID: UUID?
    public var code: String
    public var message: String

    public init(eventID: UUID?, code: String, message: String) {
        self.eventID = eventID
        self.code = code
        self.message = message
    }
}
