import Glibc

/// One blocking TCP connection with timeouts, over POSIX sockets.
final class SocketConnection {
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    /// What one `recv` reads into, kept: a fresh one a read cost more than the exchange's parsing.
    private var chunk = [UInt8](repeating: 0, count: 16_384)

    private init(fd: Int32) { self.fd = fd }

    deinit { close() }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    /// Connects to the first address of `host:port` that answers within `connectTimeout`
    /// seconds; each later send or receive may take `timeout` seconds.
    static func connect(
        host: String, port: Int, connectTimeout: Double, timeout: Double
    ) throws(HTTPClientError) -> SocketConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw HTTPClientError(.resolve, "\(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd < 0 { continue }
            if let error = connect(
                fd: fd, address: info.pointee.ai_addr, length: info.pointee.ai_addrlen, timeout: connectTimeout)
            {
                lastError = error
                _ = Glibc.close(fd)
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            return SocketConnection(fd: fd)
        }
        throw HTTPClientError(.connect, "\(host):\(port): \(lastError)")
    }

    /// Non-blocking connect bounded by `timeout`; nil on success, else the reason.
    private static func connect(
        fd: Int32, address: UnsafeMutablePointer<sockaddr>?, length: socklen_t, timeout: Double
    ) -> String? {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        if Glibc.connect(fd, address, length) == 0 { return nil }
        guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
        var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&pfd, 1, Int32(timeout * 1_000))
        if ready == 0 { return "connect timed out" }
        if ready < 0 { return String(cString: strerror(errno)) }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
        return error == 0 ? nil : String(cString: strerror(error))
    }

    func write(_ bytes: [UInt8]) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw errorFromErrno("send")
            }
            offset += n
        }
    }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws(HTTPClientError) -> Bool {
        if bufferStart > 0 && bufferStart == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            bufferStart = 0
        }
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return true
            }
            if n == 0 { return false }
            if errno == EINTR { continue }
            throw errorFromErrno("recv")
        }
    }

    private func errorFromErrno(_ call: String) -> HTTPClientError {
        let code = errno
        let kind: HTTPClientError.Kind = (code == EAGAIN || code == EWOULDBLOCK) ? .timeout : .io
        return HTTPClientError(kind, "\(call): \(String(cString: strerror(code)))")
    }

    /// Bytes up to and including CRLF CRLF (the head of a response); nil if the peer closed first.
    func readHead() throws(HTTPClientError) -> [UInt8]? {
        var scanned = 0  // bytes after bufferStart already known not to start the terminator
        while true {
            var i = bufferStart + scanned
            while i + 3 < buffer.count {
                if buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
                    let head = Array(buffer[bufferStart..<(i + 4)])
                    bufferStart = i + 4
                    return head
                }
                i += 1
            }
            scanned = i - bufferStart
            if buffer.count - bufferStart > 64 * 1_024 {
                throw HTTPClientError(.malformedResponse, "response head over 64 KiB")
            }
            let before = bufferStart
            if try !fill() {
                if buffer.count == bufferStart { return nil }
                throw HTTPClientError(.malformedResponse, "connection closed inside the response head")
            }
            if bufferStart != before { scanned = 0 }
        }
    }

    func readExactly(_ count: Int) throws(HTTPClientError) -> [UInt8] {
        while buffer.count - bufferStart < count {
            if try !fill() { throw HTTPClientError(.io, "connection closed inside the body") }
        }
        let out = Array(buffer[bufferStart..<(bufferStart + count)])
        bufferStart += count
        return out
    }

    /// One line without its CRLF (chunked encoding).
    func readLine() throws(HTTPClientError) -> [UInt8] {
        while true {
            if let i = buffer[bufferStart...].firstIndex(of: 10) {
                var end = i
                if end > bufferStart && buffer[end - 1] == 13 { end -= 1 }
                let line = Array(buffer[bufferStart..<end])
                bufferStart = i + 1
                return line
            }
            if try !fill() { throw HTTPClientError(.io, "connection closed inside a chunk") }
        }
    }

    func readToEnd() throws(HTTPClientError) -> [UInt8] {
        while try fill() {}
        let out = Array(buffer[bufferStart...])
        bufferStart = buffer.count
        return out
    }
}
