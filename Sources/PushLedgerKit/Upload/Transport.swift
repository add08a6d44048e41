import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP request the uploader makes.
public struct TransportRequest: Sendable {
    public var url: URL
    /// Header names as sent (`Authorization`, `Content-Type`, `Content-Encoding`).
    public var headers: [String: String]
    public var body: Data
    public var timeout: TimeInterval

    public init(url: URL, headers: [String: String], body: Data, timeout: TimeInterval) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One HTTP answer; header names lower-cased.
public struct TransportResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }
}

/// How requests leave the device. Throwing means no answer came (network error).
public protocol PushLedgerTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// The default transport: an ephemeral `URLSession` (no cookies, no cache), one per transport.
public final class URLSessionTransport: PushLedgerTransport, @unchecked Sendable {
    // URLSession is thread-safe; it is only created here and used through its own API.
    private let session: URLSession

    public init(configuration: URLSessionConfiguration = .ephemeral) {
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: request.timeout)
        urlRequest.httpMethod = "POST"
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        // The completion-handler form: its async twin is missing from older Linux Foundations.
        return try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: urlRequest) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                guard let http = response as? HTTPURLResponse else {
                    return continuation.resume(throwing: URLError(.badServerResponse))
                }
                var headers: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers[name] = value }
                }
                continuation.resume(
                    returning: TransportResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
            }
            task.resume()
        }
    }
}
