import Foundation

/// A response as read off the socket.
public struct RawReply: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

public struct RawHTTPError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// A deliberately low-level HTTP/1.1 client for the tests: it can send what a well-behaved
/// client never would (partial bodies, bad chunking, headers without a body).
public final class RawHTTPConnection {
    private let socket: Int32
    private var buffer: [UInt8] = []

    public init(port: UInt16, receiveTimeout: Int = 20) throws {
        socket = try Self.connectSocket(port: port)
        // A safety net so a broken server fails the test instead of hanging it; not an assertion.
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A socket connected to `127.0.0.1:port`.
    public static func connectSocket(port: UInt16) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RawHTTPError(description: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw RawHTTPError(description: "connect to port \(port): \(String(cString: strerror(errno)))")
        }
        return socket
    }

    deinit { close(socket) }

    /// Writes bytes; returns false when the peer closed (EPIPE / reset), which some tests expect.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    public func write(_ text: String) { write(Array(text.utf8)) }

    /// `GET path` and its reply.
    public func get(_ path: String) throws -> RawReply {
        write(RawRequest.make("GET", path))
        return try readReply()
    }

    /// Reads one response (Content-Length or chunked body); a reply to HEAD has no body.
    public func readReply(toHead: Bool = false) throws -> RawReply {
        let headerEnd = try readUntil(Array("\r\n\r\n".utf8))
        let headText = String(decoding: buffer[..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawHTTPError(description: "bad status line")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body: [UInt8] = []
        if toHead {
            return RawReply(status: status, headers: headers, body: [])
        } else if let length = headers["content-length"].flatMap(Int.init) {
            try fill(length)
            body = Array(buffer.prefix(length))
            buffer.removeFirst(length)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                let lineEnd = try readUntil(Array("\r\n".utf8))
                let size = Int(String(decoding: buffer[..<lineEnd], as: UTF8.self), radix: 16) ?? 0
                buffer.removeFirst(lineEnd + 2)
                try fill(size + 2)
                body += buffer.prefix(size)
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        }
        return RawReply(status: status, headers: headers, body: body)
    }

    /// What a silent client sees next: the server closing (end of stream or reset), a reply,
    /// or nothing within the receive timeout.
    public enum Ending: Equatable, Sendable {
        case closed
        case reply(Int)
        case nothing
    }

    /// Waits for the server to close the connection or to answer.
    public func waitForEnding() -> Ending {
        if !buffer.isEmpty, let reply = try? readReply() { return .reply(reply.status) }
        var chunk = [UInt8](repeating: 0, count: 4_096)
        let count = recv(socket, &chunk, chunk.count, 0)
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return .closed }
        if count < 0 { return .nothing }
        buffer += chunk.prefix(count)
        return (try? readReply()).map { .reply($0.status) } ?? .closed
    }

    /// True once the server has answered or closed the connection; looks without waiting and
    /// without taking what arrived, so `waitForEnding` still tells which.
    public func hasEnded() -> Bool {
        if !buffer.isEmpty { return true }
        var byte: UInt8 = 0
        let count = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// True when the server closed the connection (reads end of stream).
    public func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, 0) <= 0
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        while true {
            if let range = buffer.firstRange(of: marker) { return range.lowerBound }
            try readMore()
        }
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count { try readMore() }
    }

    private func readMore() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(socket, &chunk, chunk.count, 0)
        guard count > 0 else { throw RawHTTPError(description: "connection closed before a full response") }
        buffer += chunk.prefix(count)
    }
}

/// Builds request bytes.
public enum RawRequest {
    public static func make(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = [],
        contentLength: Bool = true
    ) -> [UInt8] {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: test\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if contentLength && (!body.isEmpty || method == "POST") { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    /// A JSON POST with a bearer key.
    public static func post(_ path: String, key: String, body: [UInt8]) -> [UInt8] {
        make(
            "POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(key)")],
            body: body)
    }

    /// Headers of a chunked upload; send the chunks with `chunk(_:)` and finish with `lastChunk`.
    public static func chunkedHead(_ path: String, headers: [(String, String)]) -> [UInt8] {
        make("POST", path, headers: headers + [("Transfer-Encoding", "chunked")], contentLength: false)
    }

    public static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        Array(String(bytes.count, radix: 16).utf8) + [13, 10] + bytes + [13, 10]
    }
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}
