import Foundation
import HTTPClient
import Synchronization

/// Random keys against one server beside an ordinary client: `flood` connections post with a
/// fresh random key each request (each waits for the server's shared read of the key table,
/// then gets 401), while the ordinary client posts a one-event request with a known key
/// `rate` times a second. What the ordinary client sees beside the flood, against the same
/// client alone, is the price of the flood.
public struct KeyFlood: Sendable {
    /// What one side saw.
    public struct Traffic: Sendable {
        /// Responses by status (0: no response, the connection failed).
        public var statuses: [Int: Int] = [:]
        /// Seconds from each request's due time to its response, sorted.
        public var latencies: [Double] = []

        public var requests: Int { statuses.values.reduce(0, +) }
        public func percentile(_ p: Double) -> Double { LoadGenerator.percentile(p, ofSorted: latencies) }
    }

    public var port: UInt16
    public var key: String
    public var app: String
    public var floodConnections: Int
    public var rate: Double
    public var seconds: Double

    public init(port: UInt16, key: String, app: String, floodConnections: Int, rate: Double, seconds: Double) {
        self.port = port
        self.key = key
        self.app = app
        self.floodConnections = floodConnections
        self.rate = rate
        self.seconds = seconds
    }

    /// Runs both for `seconds`; returns (flood, ordinary).
    public func run() -> (flood: Traffic, ordinary: Traffic) {
        let flood = Mutex(Traffic()), ordinary = Mutex(Traffic())
        let start = Self.now(), deadline = start + seconds
        let group = DispatchGroup()
        let body = Self.body(app: app)
        for worker in 0..<floodConnections {
            spawnClient(group) { [self] in
                var generator = SystemRandomNumberGenerator()
                var n = 0
                while Self.now() < deadline {
                    // A new connection each time: a refused key closes its connection.
                    let client = try? HTTPClient(baseURL: "http://127.0.0.1:\(port)", timeout: 60, connectTimeout: 5)
                    let guess = "pl_t_flood-\(worker)-\(n)-\(generator.next())"
                    n += 1
                    let began = Self.now()
                    let response = try? client?.post(
                        path: "/v1/telemetry", body: body, contentType: "application/json", bearer: guess)
                    let elapsed = Self.now() - began
                    client?.close()
                    flood.withLock {
                        $0.statuses[response?.status ?? 0, default: 0] += 1
                        $0.latencies.append(elapsed)
                    }
                }
            }
        }
        spawnClient(group) { [self] in
            let client = try? HTTPClient(baseURL: "http://127.0.0.1:\(port)", timeout: 60, connectTimeout: 5)
            var due = start
            while due < deadline {
                let wait = due - Self.now()
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                let response = try? client?.post(
                    path: "/v1/telemetry", body: Self.body(app: app), contentType: "application/json", bearer: key)
                // From the due time: a server falling behind shows (no coordinated omission).
                let elapsed = Self.now() - due
                if response == nil { client?.close() }
                ordinary.withLock {
                    $0.statuses[response?.status ?? 0, default: 0] += 1
                    $0.latencies.append(elapsed)
                }
                due += 1 / rate
            }
        }
        group.wait()
        return (flood.withLock { Self.sorted($0) }, ordinary.withLock { Self.sorted($0) })
    }

    private static func sorted(_ traffic: Traffic) -> Traffic {
        var traffic = traffic
        traffic.latencies.sort()
        return traffic
    }

    private static func now() -> Double { monotonicSeconds() }

    /// One experiment exposure of a new installation: the smallest valid telemetry request.
    static func body(app: String) -> [UInt8] {
        let at = ISO8601DateFormatter().string(from: Date())
        return Array(
            """
            {"app_id":"\(app)","installation_id":"\(UUID().uuidString.lowercased())","platform":"android",\
            "sent_at":"\(at)","events":[{"event_id":"\(UUID().uuidString.lowercased())",\
            "type":"experiment_exposure","at":"\(at)","experiment":"bench","variant":"a"}]}
            """.utf8)
    }
}
