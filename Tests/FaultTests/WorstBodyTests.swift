import Foundation
import Gzip
import IngestServer
import PushLedgerContract
import Synchronization
import TestSupport
import Testing

extension MachineLoad {
    /// The bodies that cost the server most, from one app on every connection it may open:
    /// gzip that decompresses to 8 MiB of JSON values (the parser stops at its value budget),
    /// gzip past 8 MiB, and 1 MiB as sent of values, while another app posts small batches.
    /// Every worst body is refused (4xx) and kept as at most the stored prefix; the server's
    /// peak RSS stays within its baseline plus `IngestServerConfig.memoryBound`; the other
    /// app's requests all succeed: validators take the apps in turn, so each waits for at most
    /// one body per validator thread, counted as the worst bodies answered while it waited (its
    /// latency is a logged figure, not asserted: a loaded machine parses more slowly).
    @Suite("Worst bodies")
    struct WorstBodyTests {
        static let connections = 64
        static let clients = 56

        /// The worst bodies, gzip or not.
        static func bodies() -> [(name: String, bytes: [UInt8], gzip: Bool)] {
            let head =
                #"{"app_id":"\#(FaultDatabase.otherApp)","installation_id":"\#(UUID().uuidString.lowercased())","#
                + #""platform":"android","events":[{"pad":["#
            let limits = IngestLimits()
            let values =
                Array(head.utf8)
                + Array(repeating: Array("0,".utf8), count: (limits.maxDecompressedBytes - head.utf8.count) / 2 - 8)
                .flatMap { $0 }
                + Array("0]}]}".utf8)
            let past = values + Array(repeating: UInt8(ascii: " "), count: 1 << 16)
            let plain =
                Array(head.utf8)
                + Array(repeating: Array("0,".utf8), count: (limits.maxBodyBytes - head.utf8.count) / 2 - 8).flatMap {
                    $0
                }
                + Array("0]}]}".utf8)
            return [
                ("values_8mib_gzip", Gzip.compress(values), true), ("past_8mib_gzip", Gzip.compress(past), true),
                ("values_1mib", plain, false),
            ]
        }

        @Test func worstBodiesAtTheConnectionLimitStayWithinTheMemoryBound() throws {
            let database = try FaultDatabase.fresh()
            let hostileKey = try FaultDatabase.createKey(app: FaultDatabase.otherApp, scope: "telemetry", database.url)
            let server = try ServeProcess(
                databaseURL: database.url,
                arguments: [
                    "--connections", "\(Self.connections)", "--per-address", "\(Self.connections)", "--timeout", "20",
                ])
            var config = IngestServerConfig()
            config.http.connectionLimit = Self.connections
            config.http.perAddressConnectionLimit = Self.connections
            let bound = config.memoryBound
            usleep(500_000)
            let baseline = try #require(server.memory()).rss
            let bodies = Self.bodies()
            #expect(bodies.allSatisfy { $0.bytes.count <= IngestLimits().maxBodyBytes })

            let stop = Atomic<Bool>(false)
            // Worst bodies the server has answered (4xx) so far: what the other app's requests are
            // measured against instead of the clock.
            let refused = Atomic<Int>(0)
            let hostile = (0..<Self.clients).map { client in
                Background { () -> [Int: Int] in
                    var statuses: [Int: Int] = [:]
                    var round = client
                    while !stop.load(ordering: .relaxed) {
                        let body = bodies[round % bodies.count]
                        round += 1
                        var headers = [("Content-Type", "application/json"), ("Authorization", "Bearer \(hostileKey)")]
                        if body.gzip { headers.append(("Content-Encoding", "gzip")) }
                        guard let connection = try? RawHTTPConnection(port: server.port, receiveTimeout: 60) else {
                            statuses[0, default: 0] += 1
                            continue
                        }
                        connection.write(RawRequest.make("POST", "/v1/telemetry", headers: headers, body: body.bytes))
                        let status = (try? connection.readReply())?.status ?? 0
                        if (400..<500).contains(status) { refused.add(1, ordering: .relaxed) }
                        statuses[status, default: 0] += 1
                    }
                    return statuses
                }
            }
            // The other app: one small batch at a time, timed, and how many worst bodies were
            // answered while it waited.
            var latencies: [Double] = []
            var overtaken: [Int] = []
            var otherStatuses: [Int: Int] = [:]
            let clock = ContinuousClock()
            let end = clock.now + .seconds(12)
            while clock.now < end {
                let started = clock.now
                let refusedBefore = refused.load(ordering: .relaxed)
                let connection = try RawHTTPConnection(port: server.port, receiveTimeout: 60)
                connection.write(
                    RawRequest.make(
                        "POST", "/v1/telemetry",
                        headers: [
                            ("Content-Type", "application/json"), ("Authorization", "Bearer \(database.telemetryKey)"),
                        ],
                        body: Fixtures.telemetry(app: FaultDatabase.app, events: [Fixtures.exposure()])))
                let status = (try? connection.readReply())?.status ?? 0
                overtaken.append(refused.load(ordering: .relaxed) - refusedBefore)
                let elapsed = clock.now - started
                latencies.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                otherStatuses[status, default: 0] += 1
                usleep(50_000)
            }
            stop.store(true, ordering: .relaxed)
            var statuses: [Int: Int] = [:]
            for client in hostile { statuses.merge(try client.value(), uniquingKeysWith: +) }
            let memory = try #require(server.memory())
            latencies.sort()
            let p50 = latencies[latencies.count / 2],
                p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]

            let hostileRequests = statuses.values.reduce(0, +)
            // 0: closed without an answer, the shedding at the connection limit (each client opens
            // a connection a request, and closing ones still count); never a 2xx or 5xx.
            #expect(statuses.keys.allSatisfy { $0 == 0 || (400..<500).contains($0) }, "\(statuses)")
            #expect(statuses.filter { (400..<500).contains($0.key) }.values.reduce(0, +) > 0)
            #expect(otherStatuses == [200: latencies.count], "\(otherStatuses)")
            #expect(
                memory.peak <= baseline + bound,
                "peak \(memory.peak >> 20) MiB, baseline \(baseline >> 20) MiB, bound \(bound >> 20) MiB")
            // Validators take the apps in turn, one thread left for another app: a request of the
            // other app waits for at most one worst body per validator thread, however slowly a
            // loaded machine parses them (its latency is a figure, logged: docs/reliability.md).
            let mostOvertaken = overtaken.max() ?? 0
            #expect(
                mostOvertaken <= 2 * config.validatorCount, "\(mostOvertaken) worst bodies answered during one request")
            let failed = try database.count(
                "select count(*)::int8 from failed_events where app_id = \(FaultDatabase.otherApp)")
            let stored = try database.count("select coalesce(sum(octet_length(raw_json)), 0)::int8 from failed_events")
            #expect(failed <= hostileRequests)
            #expect(stored <= failed * FailedText.maxStoredBytes)
            #expect(
                try database.count(
                    """
                    select count(*)::int8 from failed_events where octet_length(raw_json) > \
                    \(FailedText.maxStoredBytes)
                    """
                ) == 0)
            #expect(
                try database.count("select count(*)::int8 from failed_events where raw_bytes > octet_length(raw_json)")
                    > 0)
            FaultFigures.logger.info(
                "fault figures",
                [
                    "test": "worst_bodies", "connections": Self.connections, "hostile_requests": hostileRequests,
                    "statuses": statuses.keys.sorted().map { "\($0):\(statuses[$0]!)" }.joined(separator: ","),
                    "other_requests": latencies.count, "other_p50_ms": Int(p50 * 1000), "other_p99_ms": Int(p99 * 1000),
                    "most_overtaken": mostOvertaken,
                    "baseline_rss_mib": baseline >> 20, "peak_rss_mib": memory.peak >> 20, "bound_mib": bound >> 20,
                    "failed_events": failed, "failed_events_text_bytes": stored,
                ])
        }
    }
}
