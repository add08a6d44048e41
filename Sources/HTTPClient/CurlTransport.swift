import CCurl
import Foundation

/// HTTPS for `HTTPClient`, on libcurl: one easy handle, whose connection libcurl keeps alive
/// between requests (and reopens when the server closed it). The server's certificate and
/// host name are checked against the system store, or against `caFile` alone when given.
final class CurlTransport {
    private let handle: UnsafeMutableRawPointer

    /// curl_global_init is not thread safe; a static let runs it once, before any handle.
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    init(caFile: String?, connectTimeout: Double, timeout: Double) throws(HTTPClientError) {
        guard Self.initialized, let handle = curl_easy_init() else {
            throw HTTPClientError(.io, "libcurl did not initialise")
        }
        self.handle = handle
        var setup = [
            pl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https"),
            pl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            pl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(connectTimeout * 1_000))),
            // Like the plain client's per-send/receive timeout: no progress for `timeout` seconds.
            pl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1),
            pl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(timeout.rounded(.up)))),
            pl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1),
            pl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2),
            pl_setopt_long(handle, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)),
            pl_setopt_long(handle, CURLOPT_POST, 1),
            pl_setopt_string(handle, CURLOPT_USERAGENT, "pushledger-client/1"),
            pl_setopt_write(
                handle,
                { data, size, count, context in
                    Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue().body.append(
                        contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
                    return size * count
                }),
            pl_setopt_header(
                handle,
                { data, size, count, context in
                    Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue().header(
                        UnsafeRawBufferPointer(start: data, count: size * count))
                    return size * count
                }),
        ]
        if let caFile { setup.append(pl_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
        if let bad = setup.first(where: { $0 != CURLE_OK }) {
            curl_easy_cleanup(handle)
            throw HTTPClientError(.io, "libcurl refused an option: \(String(cString: curl_easy_strerror(bad)))")
        }
    }

    deinit { curl_easy_cleanup(handle) }

    /// POSTs `body` to `url` with `fields` as headers and returns the response, whatever its status.
    func post(
        url: String, fields: [(name: String, value: String)], body: [UInt8]
    ) throws(HTTPClientError) -> HTTPResponse {
        var list: UnsafeMutablePointer<curl_slist>?
        // No "Expect: 100-continue" round trip before the body.
        for line in fields.map({ "\($0.name): \($0.value)" }) + ["Expect:"] { list = curl_slist_append(list, line) }
        defer { curl_slist_free_all(list) }
        let exchange = Exchange()
        let context = Unmanaged.passUnretained(exchange).toOpaque()
        let code = withExtendedLifetime(exchange) {
            body.withUnsafeBytes { bytes in
                _ = pl_setopt_string(handle, CURLOPT_URL, url)
                _ = pl_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
                _ = pl_setopt_pointer(
                    handle, CURLOPT_POSTFIELDS,
                    UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
                _ = pl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, bytes.count)
                _ = pl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
                _ = pl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else { throw Self.error(code) }
        let (status, headers) = try ResponseHead.parse(exchange.head)
        return HTTPResponse(status: status, headers: headers, body: exchange.body)
    }

    private static func error(_ code: CURLcode) -> HTTPClientError {
        let reason = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST: return HTTPClientError(.resolve, reason)
        case CURLE_COULDNT_CONNECT: return HTTPClientError(.connect, reason)
        case CURLE_OPERATION_TIMEDOUT: return HTTPClientError(.timeout, reason)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE: return HTTPClientError(.untrusted, reason)
        default: return HTTPClientError(.io, reason)
        }
    }
}

/// One response as libcurl hands it over: header lines (the last response's, after any 1xx) and body.
private final class Exchange {
    var head: [UInt8] = []
    var body: [UInt8] = []

    func header(_ line: UnsafeRawBufferPointer) {
        if line.starts(with: Array("HTTP/".utf8)) { head = [] }
        head.append(contentsOf: line)
    }
}
