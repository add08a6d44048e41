import CCurl
import Foundation
import LinkCheck

/// A fetch that could not be set up at all (the checker cannot run), as opposed to a server
/// that answers badly (a verdict).
public struct FetchSetupError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Fetches association files the way the OS verifiers do, on libcurl: HTTPS only, redirects
/// reported and never followed, the body cut at a limit, certificate and host name checked.
public struct HTTPSFetcher: Sendable {
    /// PEM file of extra CAs to trust besides the system store (test and staging servers).
    public var extraCAFile: String?
    /// curl `--connect-to` entries, `HOST:PORT:ADDR:PORT`: where to connect for a host and
    /// port, while SNI and the certificate check keep using HOST.
    public var connectTo: [String]
    public var timeoutSeconds: Int

    public init(extraCAFile: String? = nil, connectTo: [String] = [], timeoutSeconds: Int = 15) {
        self.extraCAFile = extraCAFile
        self.connectTo = connectTo
        self.timeoutSeconds = timeoutSeconds
    }

    /// curl_global_init is not thread safe; a static let runs it once, before any handle.
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// The system bundle and the extra CA file, read once per checker run.
    public func trustBundle() throws(FetchSetupError) -> [UInt8]? {
        guard let extraCAFile else { return nil }
        guard let extra = FileManager.default.contents(atPath: extraCAFile), !extra.isEmpty else {
            throw FetchSetupError(message: "cannot read the CA file \(extraCAFile)")
        }
        guard String(decoding: extra, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw FetchSetupError(message: "\(extraCAFile) holds no PEM certificate")
        }
        var bundle: [UInt8] = []
        if let system = Self.defaultCAPath().flatMap({ FileManager.default.contents(atPath: $0) }) {
            bundle += system
            bundle.append(UInt8(ascii: "\n"))
        }
        return bundle + extra
    }

    /// libcurl's built-in CA bundle path (CURLINFO_CAINFO), the store it would use by default.
    static func defaultCAPath() -> String? {
        guard initialized, let handle = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(handle) }
        var path: UnsafeMutablePointer<CChar>?
        guard pl_getinfo_string(handle, CURLINFO_CAINFO, &path) == CURLE_OK, let path else { return nil }
        return String(cString: path)
    }

    /// One GET of `url`. Server and network failures come back inside the result.
    public func fetch(_ url: String, limit: Int, trust: [UInt8]?) throws(FetchSetupError) -> FetchedFile {
        guard Self.initialized, let handle = curl_easy_init() else {
            throw FetchSetupError(message: "libcurl did not initialise")
        }
        defer { curl_easy_cleanup(handle) }
        let sink = BodySink(limit: limit)
        var hosts: UnsafeMutablePointer<curl_slist>?
        for entry in connectTo { hosts = curl_slist_append(hosts, entry) }
        defer { curl_slist_free_all(hosts) }

        var setup = [
            pl_setopt_string(handle, CURLOPT_URL, url),
            pl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https"),
            pl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            pl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            pl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, 10),
            pl_setopt_long(handle, CURLOPT_TIMEOUT, timeoutSeconds),
            pl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1),
            pl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2),
            // Servers may compress; the limit applies to the decoded body, as on the device.
            pl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, ""),
            pl_setopt_string(handle, CURLOPT_USERAGENT, "pushledger-links/1"),
            pl_setopt_write(
                handle,
                { data, size, count, context in
                    let sink = Unmanaged<BodySink>.fromOpaque(context!).takeUnretainedValue()
                    return sink.append(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
                }),
            pl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque()),
        ]
        if let hosts { setup.append(pl_setopt_slist(handle, CURLOPT_CONNECT_TO, hosts)) }
        if var trust {
            setup.append(
                trust.withUnsafeMutableBytes { pl_setopt_blob(handle, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) })
        }
        if let bad = setup.first(where: { $0 != CURLE_OK }) {
            throw FetchSetupError(message: "libcurl refused an option: \(String(cString: curl_easy_strerror(bad)))")
        }

        let code = withExtendedLifetime(sink) { curl_easy_perform(handle) }
        var status = 0
        _ = pl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        if code != CURLE_OK && !(code == CURLE_WRITE_ERROR && sink.overflowed) {
            return FetchedFile(url: url, status: nil, failure: String(cString: curl_easy_strerror(code)))
        }
        return FetchedFile(
            url: url, status: status, redirectLocation: Self.info(handle, CURLINFO_REDIRECT_URL),
            contentType: Self.info(handle, CURLINFO_CONTENT_TYPE), body: sink.bytes, tooLarge: sink.overflowed)
    }

    private static func info(_ handle: UnsafeMutableRawPointer, _ key: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard pl_getinfo_string(handle, key, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}

/// Collects the body up to `limit`; one byte over aborts the transfer.
private final class BodySink {
    let limit: Int
    var bytes: [UInt8] = []
    var overflowed = false
    init(limit: Int) { self.limit = limit }

    func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count + chunk.count <= limit else {
            overflowed = true
            return false
        }
        bytes.append(contentsOf: chunk)
        return true
    }
}
