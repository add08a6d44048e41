import Foundation
import HTTPClient
import Synchronization

/// Posts pre-encoded requests over N keep-alive connections (one thread each), every request
/// exactly once, and times each one. Bodies are sent as they are on disk (already gzip), so
/// no compression charges the client's CPU to the shared machine while the server is measured.
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

        public func percentile(_ p: Double) -> Double { LoadGenerator.percentile(p, ofSorted: latencies) }
    }

    /// The nearest-rank percentile `p` (0…1) of sorted values; 0 when there are none.
    public static func percentile(_ p: Double, ofSorted values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        return values[max(0, min(values.count - 1, Int((p * Double(values.count)).rounded(.up)) - 1))]
    }

    public var port: UInt16
    public var connections: Int
    public var keys: [String: String]
    /// Events a second to pace the requests at (request i starts once the events before it are
    /// due); nil: as fast as the connections go. Paced latencies count from when a request was
    /// due, so a server falling behind shows in them (no coordinated omission).
    public var eventsPerSecond: Double?

    /// `keys` maps a path to its bearer key.
    public init(port: UInt16, connections: Int, keys: [String: String], eventsPerSecond: Double? = nil) {
        self.port = port
        self.connections = connections
        self.keys = keys
        self.eventsPerSecond = eventsPerSecond
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
        var due: [UInt64] = []
        if let rate = eventsPerSecond, rate > 0 {
            var events = 0
            due = requests.map { request in
                defer { events += request.events }
                return UInt64(Double(events) / rate * 1e9)
            }
        }
        let next = Atomic<Int>(0)
        let outcomes = Mutex<(latencies: [Double], failures: [Int: Int])>(([], [:]))
        let started = DispatchTime.now().uptimeNanoseconds
        let group = DispatchGroup()
        for _ in 0..<max(1, connections) {
            group.enter()
            let thread = Thread { [port, keys, due] in
                var latencies: [Double] = []
                var failures: [Int: Int] = [:]
                // One keep-alive connection per thread; a failed request reopens it.
                let client = try? HTTPClient(baseURL: "http://127.0.0.1:\(port)")
                while true {
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard i < requests.count else { break }
                    let request = requests[i]
                    var t0 = DispatchTime.now().uptimeNanoseconds
                    if i < due.count {
                        let at = started + due[i]
                        if at > t0 { usleep(UInt32((at - t0) / 1_000)) }
                        t0 = at
                    }
                    let status =
                        (try? client?.post(
                            path: request.path, body: request.body, contentType: request.contentType,
                            bodyIsGzip: true, bearer: keys[request.path]))??.status ?? 0
                    latencies.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
                    if status != 200 {
                        failures[status, default: 0] += 1
                        client?.close()
                    }
                }
                client?.close()
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
            Result(
                seconds: seconds, requests: requests.count, events: requests.reduce(0) { $0 + $1.events },
                failures: $0.failures, latencies: $0.latencies.sorted())
        }
    }
}

/// A malformed benchmark input.
public struct LoadError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
