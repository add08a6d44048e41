import Foundation
import HTTPClient
import Synchronization

/// Two apps against one server: the flooding app posts large sends batches as fast as its
/// connections allow, retrying each 429 or 503 after its `Retry-After`; the steady app posts
/// small batches on a fixed schedule, once each. Every send has an event id made from its app,
/// batch and position, so afterwards the stored ids can be checked against what each app was
/// told was stored (acknowledged) and what it ever sent (attempted).
public struct FairnessFlood: Sendable {
    /// One app's side of the run.
    public struct App: Sendable {
        public var id: String
        public var key: String
        public var connections: Int
        /// Sends per request.
        public var batch: Int

        public init(id: String, key: String, connections: Int, batch: Int) {
            self.id = id
            self.key = key
            self.connections = connections
            self.batch = batch
        }
    }

    /// What one app saw.
    public struct Traffic: Sendable {
        /// Responses by status (0: no response, the connection failed).
        public var statuses: [Int: Int] = [:]
        /// 429 responses without a `Retry-After` header.
        public var throttledWithoutRetryAfter = 0
        /// Seconds from sending each request to its response, sorted.
        public var latencies: [Double] = []
        /// Batches answered 200, with the positions the answer named as rejected.
        var acknowledgedBatches: [Int: Set<Int>] = [:]
        /// Batches sent at least once.
        var attemptedBatches: Set<Int> = []
        let tag: Int
        let batch: Int

        public var responses: Int { statuses.values.reduce(0, +) }
        public var ok: Int { statuses[200] ?? 0 }
        public var throttled: Int { statuses[429] ?? 0 }
        public func percentile(_ p: Double) -> Double { LoadGenerator.percentile(p, ofSorted: latencies) }

        /// Event ids the server acknowledged: in a 200 whose `rejected` list does not name them.
        public func acknowledgedIDs() -> Set<String> {
            Set(
                acknowledgedBatches.flatMap { batchIndex, rejected in
                    (0..<batch).filter { !rejected.contains($0) }.map {
                        FairnessFlood.eventID(tag: tag, batch: batchIndex, position: $0)
                    }
                })
        }

        /// Event ids sent at least once (what may be stored: acknowledged, or sent and unanswered).
        public func attemptedIDs() -> Set<String> {
            Set(
                attemptedBatches.flatMap { batchIndex in
                    (0..<batch).map { FairnessFlood.eventID(tag: tag, batch: batchIndex, position: $0) }
                })
        }
    }

    public var port: UInt16
    public var flood: App
    public var steady: App
    /// Requests a second the steady app starts, spread over its connections.
    public var steadyRate: Double
    public var seconds: Double

    public init(port: UInt16, flood: App, steady: App, steadyRate: Double, seconds: Double) {
        self.port = port
        self.flood = flood
        self.steady = steady
        self.steadyRate = steadyRate
        self.seconds = seconds
    }

    /// Runs both apps for `seconds` and returns what each saw (flood, steady).
    public func run() -> (flood: Traffic, steady: Traffic) {
        let deadline = Self.now() + seconds
        let nextBatch = Atomic<Int>(0)
        let floodTraffic = Recorder(Traffic(tag: 1, batch: flood.batch))
        let steadyTraffic = Recorder(Traffic(tag: 2, batch: steady.batch))
        let group = DispatchGroup()
        let start = Self.now()
        for _ in 0..<flood.connections {
            spawnClient(group) { [self] in
                let client = try? HTTPClient(baseURL: "http://127.0.0.1:\(port)", timeout: 60, connectTimeout: 5)
                while Self.now() < deadline {
                    let index = nextBatch.add(1, ordering: .relaxed).oldValue
                    postUntilAnswered(client, app: flood, tag: 1, batch: index, deadline: deadline, into: floodTraffic)
                }
            }
        }
        let interval = Double(steady.connections) / steadyRate
        for lane in 0..<steady.connections {
            spawnClient(group) { [self] in
                let client = try? HTTPClient(baseURL: "http://127.0.0.1:\(port)", timeout: 60, connectTimeout: 5)
                var slot = start + Double(lane) / steadyRate
                var index = lane
                while slot < deadline {
                    let wait = slot - Self.now()
                    if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                    post(client, app: steady, tag: 2, batch: index, into: steadyTraffic)
                    slot += interval
                    index += steady.connections
                }
            }
        }
        group.wait()
        return (floodTraffic.state.withLock { Self.sorted($0) }, steadyTraffic.state.withLock { Self.sorted($0) })
    }

    /// Posts one batch again after every 429 or 503 (after its `Retry-After`) or failed
    /// connection, until answered otherwise or the run is over.
    private func postUntilAnswered(
        _ client: HTTPClient?, app: App, tag: Int, batch: Int, deadline: Double, into traffic: Recorder
    ) {
        while true {
            let response = post(client, app: app, tag: tag, batch: batch, into: traffic)
            let status = response?.status ?? 0
            guard status == 429 || status == 503 || status == 0 else { return }
            let retryAfter = response?.header("Retry-After").flatMap { Double($0) } ?? 0.1
            let remaining = deadline - Self.now()
            guard remaining > 0 else { return }
            usleep(UInt32(min(retryAfter, remaining) * 1_000_000))
            guard Self.now() < deadline else { return }
        }
    }

    @discardableResult
    private func post(_ client: HTTPClient?, app: App, tag: Int, batch: Int, into traffic: Recorder) -> HTTPResponse? {
        let body = Self.body(app: app, tag: tag, batch: batch)
        traffic.state.withLock { _ = $0.attemptedBatches.insert(batch) }
        let began = Self.now()
        let response = try? client?.post(
            path: "/v1/sends", body: body, contentType: "application/json", bearer: app.key)
        let elapsed = Self.now() - began
        if response == nil { client?.close() }
        let rejected = response.map { $0.status == 200 ? Self.rejectedPositions($0.body) : [] } ?? []
        traffic.state.withLock { traffic in
            let status = response?.status ?? 0
            traffic.statuses[status, default: 0] += 1
            traffic.latencies.append(elapsed)
            if status == 429 && response?.header("Retry-After") == nil { traffic.throttledWithoutRetryAfter += 1 }
            if status == 200 { traffic.acknowledgedBatches[batch] = rejected }
        }
        return response
    }

    /// One app's traffic, shared by its client threads.
    final class Recorder: Sendable {
        let state: Mutex<Traffic>
        init(_ traffic: Traffic) { state = Mutex(traffic) }
    }

    private static func sorted(_ traffic: Traffic) -> Traffic {
        var traffic = traffic
        traffic.latencies.sort()
        return traffic
    }

    private static func now() -> Double { monotonicSeconds() }

    /// A UUID-shaped id unique to (tag, batch, position): the tag names the app.
    static func eventID(tag: Int, batch: Int, position: Int) -> String {
        hex(UInt64(tag), 8) + "-" + hex(UInt64(position), 4) + "-4000-8000-" + hex(UInt64(batch), 12)
    }

    private static func hex(_ value: UInt64, _ width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `{"sends": […]}` with `app.batch` sends of the batch; the same event ids on every retry.
    static func body(app: App, tag: Int, batch: Int) -> [UInt8] {
        let sentAt = ISO8601DateFormatter().string(from: Date())
        var text = "{\"sends\":["
        text.reserveCapacity(app.batch * 260)
        for position in 0..<app.batch {
            let id = eventID(tag: tag, batch: batch, position: position)
            if position > 0 { text += "," }
            text +=
                "{\"event_id\":\"\(id)\",\"notification_id\":\"\(id)\",\"app_id\":\"\(app.id)\",\"provider\":\"fcm\","
            text += "\"token\":\"fcm-token-\(tag)-\(batch)-\(position)\","
            text += "\"channel\":\"orders\",\"sent_at\":\"\(sentAt)\",\"status\":200}"
        }
        return Array((text + "]}").utf8)
    }

    private static func rejectedPositions(_ body: [UInt8]) -> Set<Int> {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        return Set((object?["rejected"] as? [[String: Any]] ?? []).compactMap { $0["index"] as? Int })
    }
}
