import HTTPServer
import PushLedgerContract

/// Contract-shaped answers: every error body is `{"error": code, "message": text}`.
extension HTTPResponse {
    static let jsonType = "application/json"

    static func json(_ status: Int, _ body: some ResponseBody) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", jsonType)], body: body.bytes)
    }

    static func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        json(status, IngestResponse.error(code: code, message: message))
    }

    static func envelope(_ error: EnvelopeError) -> HTTPResponse { .error(error.status, error.code, error.message) }

    static let notFound = error(404, "not_found", "no such endpoint")
    /// The answer to a CORS preflight of `/v1/telemetry`: what the browser SDK's upload sends.
    static let telemetryPreflight = HTTPResponse(
        status: 204,
        headers: [
            ("Access-Control-Allow-Methods", "POST"),
            ("Access-Control-Allow-Headers", "Authorization, Content-Type, Content-Encoding"),
            ("Access-Control-Max-Age", "86400"),
        ])
    static func methodNotAllowed(allow: [String]) -> HTTPResponse {
        error(405, "method_not_allowed", "use \(allow.joined(separator: " or "))").adding(
            "Allow", allow.joined(separator: ", "))
    }
    static let missingKey = error(401, "unauthorized", "missing API key: send Authorization: Bearer <key>")
    static let unknownKey = error(401, "unauthorized", "unknown or revoked API key")
    static let expiredKey = error(401, "key_expired", "this API key has expired: use its replacement")
    static func wrongScope(needed: String) -> HTTPResponse {
        error(403, "forbidden", "this key's scope is not \(needed)")
    }
    static func bodyTooLarge(limit: Int) -> HTTPResponse {
        error(413, "body_too_large", "request body over \(limit) bytes")
    }
    static func saturated(retryAfter: Int) -> HTTPResponse {
        error(429, "saturated", "the ingestor is busy; retry later").adding("Retry-After", "\(retryAfter)")
    }
    /// 429 for one app or key only: its share of the queue is full, or its key's rate limit.
    static func throttled(_ reason: Throttle, retryAfter: Int) -> HTTPResponse {
        let message =
            reason == .queueShare
            ? "this app's share of the ingest queue is full; retry later"
            : "this key's rate limit is reached; retry after the Retry-After seconds"
        return error(429, reason == .queueShare ? "saturated" : "rate_limited", message).adding(
            "Retry-After", "\(retryAfter)")
    }
    static func unavailable(retryAfter: Int) -> HTTPResponse {
        error(503, "unavailable", "the database is unreachable; nothing was stored; retry later").adding(
            "Retry-After", "\(retryAfter)")
    }
    /// The connection to the database broke while the request's transaction was committing:
    /// it may be stored or not (a failover can promote a standby that has it). Never "nothing
    /// was stored": a sender must not count it as lost, and its retry is answered as duplicates.
    static func outcomeUnknown(retryAfter: Int) -> HTTPResponse {
        error(
            503, "outcome_unknown",
            """
            the database connection was lost while committing; the events may or may not be stored; retry with \
            the same event ids, which are never stored twice
            """
        )
        .adding("Retry-After", "\(retryAfter)")
    }
    static func shuttingDown(retryAfter: Int) -> HTTPResponse {
        error(503, "shutting_down", "the server is shutting down; nothing was stored; retry").adding(
            "Retry-After", "\(retryAfter)")
    }
    static let internalError = error(500, "internal_error", "the request could not be stored")
}

/// Why one app's request was answered 429 (the `reason` label of `pushledger_http_throttled_total`).
enum Throttle: String {
    case queueShare = "queue_share"
    case rateLimit = "rate_limit"
}

/// Whatever `IngestResponse` returns as a body (bytes, `Data` or text).
protocol ResponseBody {
    var bytes: [UInt8] { get }
}

extension Array: ResponseBody where Element == UInt8 {
    var bytes: [UInt8] { self }
}

extension String: ResponseBody {
    var bytes: [UInt8] { Array(utf8) }
}

extension HTTPHandler {
    /// 429 with the contract's error body.
    public func tooManyUploads(_ head: RequestHead) -> HTTPResponse {
        HTTPResponse.error(
            429, "too_many_uploads", "too many request bodies arriving at once from this address; retry later"
        )
        .adding("Retry-After", "1")
    }
}
