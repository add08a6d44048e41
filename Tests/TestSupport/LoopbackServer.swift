import Foundation
import Glibc

/// A tiny HTTP/1.1 server on 127.0.0.1 for client tests: one thread per connection, requests
/// answered by `respond` in order of arrival, everything it saw recorded.
public final class LoopbackServer: @unchecked Sendable {
    public struct Request: Sendable {
        public var connection: Int
        public var path: String
        public var headers: [String: String]
        public var body: [UInt8]
    }
    /// What to do with one request: the raw response bytes, and whether to close afterwards.
    public struct Reply: Sendable {
        public var bytes: [UInt8]
        public var close = false
        /// Never answer (the client should time out).
        public var hang = false

        public init(bytes: [UInt8], close: Bool = false, hang: Bool = false) {
            self.bytes = bytes
            self.close = close
            self.hang = hang
        }

        public static func status(
            _ code: Int, _ body: String = "{}", headers: [String] = [], close: Bool = false
        ) -> Reply {
            var head = "HTTP/1.1 \(code) X\r\nContent-Length: \(body.utf8.count)\r\n"
            for h in headers { head += h + "\r\n" }
            return Reply(bytes: Array((head + "\r\n" + body).utf8), close: close)
        }
    }

    public let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var requests: [Request] = []
    private var connections = 0
    private var clientFDs: [Int32] = []
    private var stopped = false
    private let respond: @Sendable (Request, Int) -> Reply

    /// `respond` gets the request and its 0-based arrival number.
    public init(respond: @escaping @Sendable (Request, Int) -> Reply) throws {
        self.respond = respond
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// A port bound but not listening (connections are refused) while `body` runs.
    public static func withRefusingPort<T>(_ body: (Int) throws -> T) throws -> T {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return try body(Int(UInt16(bigEndian: address.sin_port)))
    }
    public var seen: [Request] { lock.withLock { requests } }
    public var connectionCount: Int { lock.withLock { connections } }

    /// Stops accepting; the accept thread closes the listener itself, so its descriptor
    /// number cannot be reused by another test's server while that thread still uses it.
    public func stop() {
        lock.withLock {
            stopped = true
            for fd in clientFDs { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 { return }
            if lock.withLock({ stopped }) {
                close(fd)
                return
            }
            let index = lock.withLock {
                connections += 1
                clientFDs.append(fd)
                return connections - 1
            }
            Thread { [self] in serve(fd, connection: index) }.start()
        }
    }

    private func serve(_ fd: Int32, connection: Int) {
        // forget the descriptor before closing it: its number may be reused by another socket
        defer {
            lock.withLock { clientFDs.removeAll { $0 == fd } }
            close(fd)
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        func fill() -> Bool {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return false }
            buffer += chunk[0..<n]
            return true
        }
        while true {
            var headEnd: Int?
            while headEnd == nil {
                if buffer.count >= 4 {
                    headEnd = (0...(buffer.count - 4)).first {
                        buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
                    }
                }
                if headEnd == nil && !fill() { return }
            }
            let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
            var headers: [String: String] = [:]
            for line in head.dropFirst() {
                if let colon = line.firstIndex(of: ":") {
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                        in: .whitespaces)
                }
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            buffer.removeFirst(headEnd! + 4)
            while buffer.count < length { if !fill() { return } }
            let body = Array(buffer[0..<length])
            buffer.removeFirst(length)
            let path = head[0].split(separator: " ").dropFirst().first.map(String.init) ?? ""
            let request = Request(connection: connection, path: path, headers: headers, body: body)
            let number = lock.withLock {
                requests.append(request)
                return requests.count - 1
            }
            let reply = respond(request, number)
            if reply.hang {
                while fill() {}
                return
            }
            _ = reply.bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if reply.close { return }
        }
    }
}
