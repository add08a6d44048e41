import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A minimal HTTP/1.1 POST over POSIX sockets, for alert webhooks: plain `http://` only (put
/// a TLS-terminating relay in front of an https endpoint such as Slack's), one request per
/// connection, the whole exchange bounded by `timeout`.
struct HTTPPost {
    struct Endpoint: Equatable {
        var host: String
        var port: UInt16
        var path: String
    }

    /// The response status, or why there was none.
    enum Outcome: Equatable {
        case status(Int)
        case failed(String)
    }

    var endpoint: Endpoint
    var timeout: Duration

    /// Parses `http://host[:port][/path]`; nil for anything else.
    static func endpoint(_ url: String) -> Endpoint? {
        guard let parts = URLComponents(string: url), parts.scheme?.lowercased() == "http",
            let host = parts.host, !host.isEmpty, parts.user == nil
        else { return nil }
        let port = parts.port ?? 80
        guard (1...65_535).contains(port) else { return nil }
        var path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { path += "?" + query }
        return Endpoint(host: host, port: UInt16(port), path: path)
    }

    /// Sends `body` as `application/json`; returns the response status.
    func post(_ body: [UInt8]) -> Outcome {
        let socket: Int32
        switch openConnection() {
        case .success(let fd): socket = fd
        case .failure(let reason): return .failed(reason.message)
        }
        defer { close(socket) }
        let head = "POST \(endpoint.path) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\n"
            + "User-Agent: pushledger-alert\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        guard writeAll(socket, Array(head.utf8) + body) else { return .failed("sending the request failed: \(errnoText())") }
        return readStatus(socket)
    }

    struct Failure: Error { var message: String }

    private func openConnection() -> Result<Int32, Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(Failure(message: "cannot resolve \(endpoint.host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            next = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { lastError = errnoText(); continue }
            // On Linux SO_SNDTIMEO also bounds connect(); SO_RCVTIMEO bounds each read.
            var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return .success(fd) }
            lastError = "cannot connect to \(endpoint.host):\(endpoint.port): \(errnoText())"
            close(fd)
        }
        return .failure(Failure(message: lastError))
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads until the status line is complete (the rest of the response is not needed).
    private func readStatus(_ fd: Int32) -> Outcome {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !received.contains(UInt8(ascii: "\n")) && received.count < 8192 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return .failed("no response within the timeout: \(errnoText())") }
            if count == 0 { break }
            received += buffer[..<count]
        }
        let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let fields = line.split(separator: " ")
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/1."), let code = Int(fields[1]), (100...599).contains(code) else {
            return .failed(received.isEmpty ? "the connection closed without a response" : "malformed response status line")
        }
        return .status(code)
    }

    private func errnoText() -> String { String(cString: strerror(errno)) }
}
