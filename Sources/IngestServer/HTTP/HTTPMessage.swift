import Foundation

/// A response before it goes on the wire.
struct HTTPResponse: Sendable, Equatable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.body == b.body && a.headers.elementsEqual(b.headers) { $0 == $1 }
    }

    /// A body in the given media type.
    static func content(_ status: Int, _ text: String, type: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", type)], body: Array(text.utf8))
    }

    /// Adds a header (builder style).
    func adding(_ name: String, _ value: String) -> HTTPResponse {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }
}

/// The parts of a request the server looks at before reading its body.
struct RequestHead: Sendable, Equatable {
    var method: String
    /// The path without the query string.
    var path: String
    var contentType: String?
    var contentEncoding: String?
    /// Parsed `Content-Length`; nil when absent (chunked) or malformed.
    var contentLength: Int?
    var authorization: String?
    /// The `dry_run` query argument as sent (nil when absent).
    var dryRun: String? = nil
    /// Query-string arguments, percent-decoded (the last of a repeated name wins).
    var query: [String: String] = [:]
    /// The connection's peer (IPv4 dotted quad; empty when unknown) and its `X-Forwarded-For`:
    /// `TrustedProxies` decides which of them is the client.
    var peer = ""
    var forwardedFor: String? = nil
}

/// What to do once a request's headers are in.
enum HeadDecision: Sendable {
    /// Answer at once, without reading the body (libmicrohttpd then closes the connection).
    case respond(HTTPResponse)
    /// Read the body, at most `limit` bytes; `context` comes back with the body.
    case readBody(limit: Int, context: any Sendable)
}

/// The application side of the HTTP layer. Called on libmicrohttpd threads.
protocol HTTPHandler: AnyObject, Sendable {
    /// Routes and checks a request from its headers alone.
    func decide(_ head: RequestHead) -> HeadDecision
    /// The answer when the body turns out longer than the limit given by `decide`.
    func bodyTooLarge(_ head: RequestHead) -> HTTPResponse
    /// Handles a complete body: call `reply.send` exactly once, from any thread.
    func handle(_ head: RequestHead, body: [UInt8], context: any Sendable, reply: ReplySlot)
    /// A response went out (metrics, access log).
    func responded(_ head: RequestHead, status: Int)
}

/// Where a handler puts its answer; the one request waits for it without holding a thread.
protocol ReplySlot: Sendable {
    func send(_ response: HTTPResponse)
}

extension HTTPHandler {
    /// The answer when the client's address already has its cap of uploads in progress:
    /// 429, before any of the body is read.
    func tooManyUploads(_ head: RequestHead) -> HTTPResponse {
        HTTPResponse.error(429, "too_many_uploads", "too many request bodies arriving at once from this address; retry later")
            .adding("Retry-After", "1")
    }
}
