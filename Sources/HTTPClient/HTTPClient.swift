import Foundation
import Gzip
import PushLedgerSupport

/// A small blocking HTTP/1.1 client for posting batches to the ingest service: one
/// keep-alive connection, reused across requests and reopened when the server closed it.
/// One request at a time per client (calls are serialised); use one client per thread.
public final class HTTPClient: @unchecked Sendable {
    public let host: String
    public let port: Int
    /// Path prefix from the base URL (empty or starting with "/", no trailing slash).
    public let basePath: String
    /// Seconds allowed for each send/receive on the socket.
    public let timeout: Double
    /// Seconds allowed to connect.
    public let connectTimeout: Double
    /// How `postWithRetry` waits; tests replace it to record delays instead of sleeping.
    public var sleep: @Sendable (Double) -> Void = { seconds in
        if seconds > 0 { usleep(UInt32(min(seconds, 3_600) * 1_000_000)) }
    }

    private let lock = NSLock()
    private var connection: SocketConnection?
    /// Set for `https://` base URLs: requests go through libcurl.
    private let tls: CurlTransport?
    /// `https://authority` for the libcurl requests.
    private let origin: String

    /// `baseURL` like `http://127.0.0.1:8080` or `https://ingest.example.com`; `connectTimeout`
    /// defaults to `timeout`. Over HTTPS the certificate is checked against the system store,
    /// or against the PEM bundle `caFile` alone when given.
    public init(
        baseURL: String, timeout: Double = 30, connectTimeout: Double? = nil, caFile: String? = nil
    ) throws(HTTPClientError) {
        let secure = baseURL.hasPrefix("https://")
        guard secure || baseURL.hasPrefix("http://") else {
            throw HTTPClientError(.invalidURL, "only http:// and https:// URLs are supported: \(baseURL)")
        }
        let rest = baseURL.drop { $0 != "/" }.dropFirst(2)
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        while path.hasSuffix("/") { path.removeLast() }
        var hostPart = Substring(authority), port = secure ? 443 : 80
        if authority.hasPrefix("[") {  // [IPv6]:port
            guard let close = authority.firstIndex(of: "]") else { throw HTTPClientError(.invalidURL, baseURL) }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()) else { throw HTTPClientError(.invalidURL, baseURL) }
                port = p
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            guard let p = Int(authority[authority.index(after: colon)...]) else {
                throw HTTPClientError(.invalidURL, baseURL)
            }
            port = p
        }
        guard !hostPart.isEmpty, (1...65_535).contains(port) else { throw HTTPClientError(.invalidURL, baseURL) }
        host = String(hostPart)
        self.port = port
        basePath = path
        self.timeout = timeout
        self.connectTimeout = connectTimeout ?? timeout
        origin = "https://\(authority)"
        tls =
            secure
            ? try CurlTransport(caFile: caFile, connectTimeout: connectTimeout ?? timeout, timeout: timeout) : nil
    }

    /// Closes the kept-alive connection (a later request opens a new one; over HTTPS libcurl
    /// keeps its connection until the client goes away).
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        connection?.close()
        connection = nil
    }

    /// POSTs one body and returns the response, whatever its status. `gzip` compresses it;
    /// `bodyIsGzip` sends a body compressed ahead of time as it is (benchmarks keep the
    /// client's compression off the measured machine), labelled gzip.
    public func post(
        path: String, body: [UInt8], contentType: String, gzip: Bool = false, bodyIsGzip: Bool = false,
        bearer: String? = nil
    ) throws(HTTPClientError) -> HTTPResponse {
        let payload = gzip && !bodyIsGzip ? Gzip.compress(body) : body
        var fields: [(name: String, value: String)] = [("Content-Type", contentType), ("Accept", "application/json")]
        if gzip || bodyIsGzip { fields.append(("Content-Encoding", "gzip")) }
        if let bearer { fields.append(("Authorization", "Bearer \(bearer)")) }
        lock.lock()
        defer { lock.unlock() }
        if let tls { return try tls.post(url: origin + basePath + path, fields: fields, body: payload) }
        var head =
            """
            POST \(basePath)\(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Length: \
            \(payload.count)\r\nConnection: keep-alive\r\n
            """
        for field in fields { head += "\(field.name): \(field.value)\r\n" }
        return try exchange(Array((head + "\r\n").utf8) + payload)
    }

    /// POSTs with retries on 429, 503 and network errors: exponential backoff with jitter, or
    /// the server's `Retry-After`, for at most `policy.maxAttempts` attempts. `makeBody` is
    /// called for every attempt (so a batch can re-stamp its `sent_at`). Returns the last
    /// response (which may still be 429/503 when attempts ran out) or throws the last network error.
    public func postWithRetry(
        path: String, contentType: String, gzip: Bool = false, bearer: String? = nil,
        policy: RetryPolicy = RetryPolicy(), onRetry: (Int, String) -> Void = { _, _ in },
        makeBody: () -> [UInt8]
    ) throws(HTTPClientError) -> HTTPResponse {
        var attempt = 1
        while true {
            let outcome: Result<HTTPResponse, HTTPClientError>
            do {
                outcome = .success(
                    try post(path: path, body: makeBody(), contentType: contentType, gzip: gzip, bearer: bearer))
            } catch {
                outcome = .failure(error)
            }
            let retryAfter: String?
            switch outcome {
            case .success(let response):
                guard response.status == 429 || response.status == 503, attempt < policy.maxAttempts else {
                    return response
                }
                retryAfter = response.header("Retry-After")
                onRetry(attempt, "HTTP \(response.status)")
            case .failure(let error):
                guard error.isRetryable, attempt < policy.maxAttempts else { throw error }
                retryAfter = nil
                onRetry(attempt, error.description)
            }
            sleep(policy.delay(afterAttempt: attempt, retryAfter: retryAfter, random: Double.random(in: 0...1)))
            attempt += 1
        }
    }

    /// Sends on the kept-alive connection; if that connection turns out closed before any
    /// response byte arrived, reconnects once and sends again.
    private func exchange(_ request: [UInt8]) throws(HTTPClientError) -> HTTPResponse {
        let reused = connection != nil
        do throws(HTTPClientError) {
            if let response = try attempt(request) { return response }
            guard reused else { throw HTTPClientError(.io, "server closed the connection without a response") }
        } catch {
            connection?.close()
            connection = nil
            guard reused, error.kind == .io else { throw error }
        }
        connection?.close()
        connection = nil
        if let response = try attempt(request) { return response }
        throw HTTPClientError(.io, "server closed the connection without a response")
    }

    /// nil when the connection was closed before a response head arrived.
    private func attempt(_ request: [UInt8]) throws(HTTPClientError) -> HTTPResponse? {
        let conn: SocketConnection
        if let existing = connection {
            conn = existing
        } else {
            conn = try SocketConnection.connect(
                host: host, port: port, connectTimeout: connectTimeout, timeout: timeout)
            connection = conn
        }
        try conn.write(request)
        guard let head = try conn.readHead() else {
            conn.close()
            connection = nil
            return nil
        }
        let (status, headers) = try ResponseHead.parse(head)
        let response = HTTPResponse(
            status: status, headers: headers, body: try readBody(conn, status: status, headers: headers))
        let wantsClose = response.header("Connection")?.lowercased() == "close"
        if wantsClose {
            conn.close()
            connection = nil
        }
        return response
    }

    private func readBody(
        _ conn: SocketConnection, status: Int, headers: [HTTPHeader]
    ) throws(HTTPClientError) -> [UInt8] {
        let probe = HTTPResponse(status: status, headers: headers, body: [])
        if status == 204 || status == 304 || (100...199).contains(status) { return [] }
        if probe.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            var body: [UInt8] = []
            while true {
                let line = String(decoding: try conn.readLine(), as: UTF8.self)
                guard let size = Int(line.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces), radix: 16),
                    size >= 0
                else {
                    throw HTTPClientError(.malformedResponse, "bad chunk size \(line)")
                }
                if size == 0 {
                    while try !conn.readLine().isEmpty {}  // trailers
                    return body
                }
                body += try conn.readExactly(size)
                _ = try conn.readLine()
            }
        }
        if let length = probe.header("Content-Length") {
            guard let n = Int(length.trimmingCharacters(in: .whitespaces)), n >= 0 else {
                throw HTTPClientError(.malformedResponse, "bad Content-Length \(length)")
            }
            return try conn.readExactly(n)
        }
        // no length: the body runs to the end of the connection
        let body = try conn.readToEnd()
        conn.close()
        connection = nil
        return body
    }
}

/// Parses a status line and header fields, byte by byte (a load generator parses one a request).
enum ResponseHead {
    static func parse(_ head: [UInt8]) throws(HTTPClientError) -> (Int, [HTTPHeader]) {
        var lines = head.split(separator: 10, omittingEmptySubsequences: false).map { line in
            line.last == 13 ? line.dropLast() : line
        }.filter { !$0.isEmpty }[...]
        guard let statusLine = lines.popFirst() else {
            throw HTTPClientError(.malformedResponse, "empty response head")
        }
        let parts = statusLine.split(separator: 32, maxSplits: 2)
        guard parts.count >= 2, parts[0].starts(with: Array("HTTP/1.".utf8)), parts[1].count == 3,
            parts[1].allSatisfy({ (48...57).contains($0) })
        else {
            throw HTTPClientError(.malformedResponse, "bad status line")
        }
        let status = parts[1].reduce(0) { $0 * 10 + Int($1 - 48) }
        var headers: [HTTPHeader] = []
        for line in lines {
            guard let colon = line.firstIndex(of: 58) else {
                throw HTTPClientError(.malformedResponse, "bad header line")
            }
            let isBlank = { (byte: UInt8) in byte == 32 || byte == 9 }
            let value = line[line.index(after: colon)...].drop(while: isBlank)
            let end = value.lastIndex { !isBlank($0) }.map { value.index(after: $0) } ?? value.startIndex
            headers.append(
                HTTPHeader(
                    name: String(decoding: line[..<colon], as: UTF8.self),
                    value: String(decoding: value[..<end], as: UTF8.self)))
        }
        return (status, headers)
    }
}
