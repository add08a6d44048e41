import CMicroHTTPD
import Foundation

/// The PEM files of `serve --tls-cert` and `--tls-key`: the certificate chain (server first)
/// and its unencrypted private key.
public struct TLSFiles: Sendable, Equatable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }

    /// Reads and checks both files as the server would at start or on SIGHUP.
    public func check() throws(TLSError) { _ = try TLSCredentials.load(self) }
}

/// A certificate or key the server cannot use. `description` is safe to show; `detail` holds
/// GnuTLS's words for the log (never key material).
public struct TLSError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public var detail: String

    public init(description: String, detail: String) {
        self.description = description
        self.detail = detail
    }
}

/// A certificate chain and its key, read and accepted by libmicrohttpd (GnuTLS) together with
/// the server's protocol versions. Holds the key's text: never log it.
public struct TLSCredentials: Sendable {
    /// TLS 1.3 and 1.2 only, GnuTLS priority syntax; TLS 1.2 only with forward secrecy (ECDHE)
    /// and AEAD ciphers (AES-GCM, ChaCha20-Poly1305: no CBC, no RSA key exchange), in the
    /// server's order, AES-256 first. TLS 1.3's suites are all AEAD with ephemeral keys.
    /// libmicrohttpd 0.9.75 (Debian 12) has no MHD_OPTION_HTTPS_PRIORITIES_APPEND (0.9.76), so
    /// the whole string is given.
    static let priorities =
        "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA"
        + ":-CIPHER-ALL:+AES-256-GCM:+CHACHA20-POLY1305:+AES-128-GCM:-MAC-ALL:+AEAD:%SERVER_PRECEDENCE"

    let certificate: String
    let key: String

    /// Reads both files and checks them by starting a daemon with no socket and no threads:
    /// GnuTLS parses them, matches the key to the certificate and takes the priorities, exactly
    /// as the serving daemon will.
    public static func load(_ files: TLSFiles) throws(TLSError) -> TLSCredentials {
        let certificate = try read(files.certificate, what: "certificate")
        let key = try read(files.key, what: "key")
        guard certificate.contains("-----BEGIN CERTIFICATE-----") else {
            throw TLSError(
                description: "the TLS certificate file \(files.certificate) holds no PEM certificate", detail: "")
        }
        guard key.contains("PRIVATE KEY-----"), !key.contains("ENCRYPTED PRIVATE KEY") else {
            throw TLSError(
                description: "the TLS key file \(files.key) holds no unencrypted PEM private key", detail: "")
        }
        let credentials = TLSCredentials(certificate: certificate, key: key)
        let log = CollectedLog()
        let pointers = credentials.cStrings()
        defer { pointers.forEach { free($0) } }
        var sink = pushledger_log_sink(line: collectLine, context: Unmanaged.passUnretained(log).toOpaque())
        let flags = MHD_USE_TLS.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ERROR_LOG.rawValue
        let trial = withExtendedLifetime(log) {
            withUnsafeMutablePointer(to: &sink) { sink in
                var options =
                    [MHD_OptionItem(option: .EXTERNAL_LOGGER, value: pushledger_log_formatter(), ptr_value: sink)]
                    + options(pointers) + [MHD_OptionItem(option: .END, value: 0, ptr_value: nil)]
                return options.withUnsafeMutableBufferPointer { items in
                    withVaList([MHD_OPTION.ARRAY.rawValue, items.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                        MHD_start_daemon_va(flags, 0, nil, nil, refuseEverything, nil, arguments)
                    }
                }
            }
        }
        guard let trial else {
            throw TLSError(
                description:
                    """
                    the TLS certificate \(files.certificate) and key \(files.key) were refused (not PEM, or the \
                    key does not belong to the certificate)
                    """,
                detail: log.lines.joined(separator: " "))
        }
        MHD_stop_daemon(trial)
        return credentials
    }

    /// `strdup`ed copies of certificate, key and priorities, for `options`; free them once the
    /// daemon using them is stopped.
    func cStrings() -> [UnsafeMutablePointer<CChar>] {
        [strdup(certificate), strdup(key), strdup(Self.priorities)]
    }

    /// The libmicrohttpd options of a TLS daemon over the strings of `cStrings`.
    static func options(_ strings: [UnsafeMutablePointer<CChar>]) -> [MHD_OptionItem] {
        [
            MHD_OptionItem(option: .HTTPS_MEM_CERT, value: 0, ptr_value: UnsafeMutableRawPointer(strings[0])),
            MHD_OptionItem(option: .HTTPS_MEM_KEY, value: 0, ptr_value: UnsafeMutableRawPointer(strings[1])),
            MHD_OptionItem(option: .HTTPS_PRIORITIES, value: 0, ptr_value: UnsafeMutableRawPointer(strings[2])),
        ]
    }

    private static func read(_ path: String, what: String) throws(TLSError) -> String {
        guard let handle = fopen(path, "r") else {
            throw TLSError(
                description: "cannot read the TLS \(what) file \(path): \(String(cString: strerror(errno)))", detail: ""
            )
        }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = fread(&chunk, 1, chunk.count, handle)
            bytes += chunk[..<count]
            if count < chunk.count { break }
            // A chain is a few kilobytes; anything this large is the wrong file.
            guard bytes.count <= 1 << 20 else {
                throw TLSError(description: "the TLS \(what) file \(path) is over 1 MiB", detail: "")
            }
        }
        guard ferror(handle) == 0 else {
            throw TLSError(
                description: "cannot read the TLS \(what) file \(path): \(String(cString: strerror(errno)))", detail: ""
            )
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// libmicrohttpd's messages during the trial start.
private final class CollectedLog: @unchecked Sendable {
    var lines: [String] = []
}

/// `pushledger_log_sink.line`: one formatted libmicrohttpd message into `CollectedLog`.
private let collectLine: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void = { context, text in
    guard let context, let text else { return }
    let line = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    Unmanaged<CollectedLog>.fromOpaque(context).takeUnretainedValue().lines.append(line)
}

/// The trial daemon's access handler: it never gets a connection.
private let refuseEverything: MHD_AccessHandlerCallback = { _, _, _, _, _, _, _, _ in MHD_Result.NO }
