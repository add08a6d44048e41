import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Posts pre-encoded requests over N keep-alive connections (one thread each), every request
/// exactly once, and times each one. Bodies are sent as they are on disk (already gzip):
/// IngestClient compresses while posting, which would charge the client's CPU to the shared
/// machine while the server is being measured.
public struct LoadGenerator: Sendable {
    /// One request: path, content type, gzip body, and how many events it carries.
    public struct Request: Sendable {
        public var path: String
        public var contentType: String
        public var body: [UInt8]
        public var events: Int
    }

    /// What a run measured.
    public struct Result: Sendable {
        public var seconds: Double
        public var requests: Int
        public var events: Int
        /// Responses other than 200, by status (0: the connection failed).
        public var failures: [Int: Int]
        /// Request latencies in seconds, sorted.
        public var latencies: [Double]

        public func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return latencies[min(latencies.count - 1, Int((p * Double(latencies.count)).rounded(.up)) - 1)]
        }
    }

    public var port: UInt16
    public var connections: Int
    public var keys: [String: String]

    /// `keys` maps a path to its bearer key.
    public init(port: UInt16, connections: Int, keys: [String: String]) {
        self.port = port
        self.connections = connections
        self.keys = keys
    }

    /// Reads `manifest.tsv` and the bodies it names from `directory`.
    public static func load(_ directory: URL) throws -> [Request] {
        let text = try String(contentsOf: directory.appendingPathComponent(IngestInputs.manifestName), encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 4, let events = Int(f[3]) else { throw LoadError("bad manifest line: \(line)") }
            let body = try Data(contentsOf: directory.appendingPathComponent(f[0]))
            return Request(path: f[1], contentType: f[2], body: [UInt8](body), events: events)
        }
    }

    /// Posts every request once; returns when all are answered.
    public func run(_ requests: [Request]) -> Result {
        let encoded = requests.map { r in
            let head = "POST \(r.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(r.contentType)\r\n"
                + "Content-Encoding: gzip\r\nContent-Length: \(r.body.count)\r\n"
                + "Authorization: Bearer \(keys[r.path] ?? "")\r\n\r\n"
            return Array(head.utf8) + r.body
        }
        let next = Atomic<Int>(0)
        let outcomes = Mutex<(latencies: [Double], failures: [Int: Int])>(([], [:]))
        let started = DispatchTime.now().uptimeNanoseconds
        let group = DispatchGroup()
        for _ in 0..<max(1, connections) {
            group.enter()
            let thread = Thread { [port] in
                var latencies: [Double] = []
                var failures: [Int: Int] = [:]
                var socket: Int32 = -1
                while true {
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard i < encoded.count else { break }
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    if socket < 0 { socket = Self.connect(port) }
                    let status = socket < 0 ? 0 : Self.exchange(socket, encoded[i])
                    latencies.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
                    if status != 200 {
                        failures[status, default: 0] += 1
                        if socket >= 0 { close(socket) }
                        socket = -1
                    }
                }
                if socket >= 0 { close(socket) }
                outcomes.withLock {
                    $0.latencies += latencies
                    $0.failures.merge(failures, uniquingKeysWith: +)
                }
                group.leave()
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        group.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return outcomes.withLock {
            Result(seconds: seconds, requests: requests.count, events: requests.reduce(0) { $0 + $1.events },
                   failures: $0.failures, latencies: $0.latencies.sorted())
        }
    }

    private static func connect(_ port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if ok != 0 {
            close(fd)
            return -1
        }
        return fd
    }

    /// Writes the request, reads one response (head and Content-Length body); returns its
    /// status, or 0 when the connection failed.
    private static func exchange(_ fd: Int32, _ request: [UInt8]) -> Int {
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return 0 }
            sent += n
        }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var received: [UInt8] = []
        var headEnd: Int?
        var needed = Int.max
        while received.count < needed {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            guard n > 0 else { return 0 }
            received += buffer[0..<n]
            if headEnd == nil, let end = Self.headEnd(received) {
                headEnd = end
                let head = String(decoding: received[0..<end], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                needed = end + length
            }
        }
        let statusLine = String(decoding: received.prefix(16), as: UTF8.self).split(separator: " ")
        return statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}

/// A malformed benchmark input.
public struct LoadError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
