import Foundation

/// A response before it goes on the wire.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.body == b.body && a.headers.elementsEqual(b.headers) { $0 == $1 }
    }

    /// A body in the given media type.
    public static func content(_ status: Int, _ text: String, type: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", type)], body: Array(text.utf8))
    }

    /// Adds a header (builder style).
    public func adding(_ name: String, _ value: String) -> HTTPResponse {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }
}

/// The parts of a request the server looks at before reading its body.
public struct RequestHead: Sendable, Equatable {
    public var method: String
    /// The path without the query string.
    public var path: String
    public var contentType: String?
    public var contentEncoding: String?
    /// Parsed `Content-Length`; nil when absent (chunked) or malformed.
    public var contentLength: Int?
    public var authorization: String?
    /// The `dry_run` query argument as sent (nil when absent).
    public var dryRun: String? = nil
    /// Query-string arguments, percent-decoded (the last of a repeated name wins).
    public var query: [String: String] = [:]
    /// The connection's peer (IPv4 dotted quad; empty when unknown) and its `X-Forwarded-For`:
    /// `TrustedProxies` decides which of them is the client.
    public var peer = ""
    public var forwardedFor: String? = nil

    public init(
        method: String, path: String, contentType: String?, contentEncoding: String?, contentLength: Int?,
        authorization: String?, dryRun: String? = nil, query: [String: String] = [:], peer: String = "",
        forwardedFor: String? = nil
    ) {
        self.method = method
        self.path = path
        self.contentType = contentType
        self.contentEncoding = contentEncoding
        self.contentLength = contentLength
        self.authorization = authorization
        self.dryRun = dryRun
        self.query = query
        self.peer = peer
        self.forwardedFor = forwardedFor
    }
}

/// What to do once a request's headers are in.
public enum HeadDecision: Sendable {
    /// Answer at once, without reading the body (libmicrohttpd then closes the connection).
    case respond(HTTPResponse)
    /// Read the body, at most `limit` bytes; `context` comes back with the body.
    case readBody(limit: Int, context: any Sendable)
    /// Not decidable yet (a key the cache lacks waits for a fresh read): `start` gets the slot
    /// to put the decision in, once, from any thread. The connection waits suspended, holding
    /// no thread and reading nothing of the body. A `later` put in the slot is answered 500.
    case later(_ start: @Sendable (any DecisionSlot) -> Void)
}

/// Where a `HeadDecision.later` puts its decision.
public protocol DecisionSlot: Sendable {
    func decide(_ decision: HeadDecision)
}

/// The application side of the HTTP layer. Called on libmicrohttpd threads.
public protocol HTTPHandler: AnyObject, Sendable {
    /// Routes and checks a request from its headers alone.
    func decide(_ head: RequestHead) -> HeadDecision
    /// The answer when the body turns out longer than the limit given by `decide`.
    func bodyTooLarge(_ head: RequestHead) -> HTTPResponse
    /// Handles a complete body: call `reply.send` exactly once, from any thread.
    func handle(_ head: RequestHead, body: [UInt8], context: any Sendable, reply: ReplySlot)
    /// A response went out (metrics, access log).
    func responded(_ head: RequestHead, status: Int)
    /// The answer when the client's address already has its cap of uploads in progress (a 429),
    /// given before any of the body is read.
    func tooManyUploads(_ head: RequestHead) -> HTTPResponse
    /// Headers every answer to this request carries, whichever path answered it (e.g. CORS).
    func commonHeaders(_ head: RequestHead) -> [(name: String, value: String)]
}

/// Where a handler puts its answer; the one request waits for it without holding a thread.
public protocol ReplySlot: Sendable {
    func send(_ response: HTTPResponse)
}
