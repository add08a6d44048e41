import Bench
import Foundation
import TestSupport
import Testing

extension MachineLoad {
    /// One app's flood against the real server must not starve another app: app A posts 500-send
    /// batches on 64 connections as fast as it is answered, retrying each 429 after its
    /// `Retry-After`; app B posts 20 sends a request, 20 requests a second. B's requests succeed,
    /// A is told to back off once past its share, and nothing acknowledged to either is lost or
    /// stored twice. B's latency is a logged figure (scripts/fairness.sh measures it on a release
    /// build, with and without the fairness settings).
    @Suite("Flood between apps")
    struct FloodTests {
        static let flooding = "com.example.flood"
        static let steady = "com.example.steady"

        @Test func aFloodingAppDoesNotStarveASteadyOne() throws {
            let database = try FaultDatabase.fresh()
            let floodKey = try FaultDatabase.createKey(app: Self.flooding, scope: "sends", database.url)
            let steadyKey = try FaultDatabase.createKey(app: Self.steady, scope: "sends", database.url)
            // Every client is on 127.0.0.1: the per-address cap must admit 64 + 4 connections.
            let server = try ServeProcess(
                databaseURL: database.url, arguments: ["--per-address", "128", "--app-share", "4"])
            let flood = FairnessFlood(
                port: server.port,
                flood: .init(id: Self.flooding, key: floodKey, connections: 64, batch: 500),
                steady: .init(id: Self.steady, key: steadyKey, connections: 4, batch: 20),
                steadyRate: 20, seconds: 15)
            let (a, b) = flood.run()
            server.send(SIGTERM)
            let exit = server.waitForExit()

            FaultFigures.logger.info(
                "fault figures",
                [
                    "test": "flood between apps", "b_requests": "\(b.responses)", "b_200": "\(b.ok)",
                    "b_p50_ms": "\(Int(b.percentile(0.5) * 1000))", "b_p99_ms": "\(Int(b.percentile(0.99) * 1000))",
                    "b_max_ms": "\(Int((b.latencies.last ?? 0) * 1000))", "a_requests": "\(a.responses)",
                    "a_200": "\(a.ok)",
                    "a_429": "\(a.throttled)", "a_statuses": "\(a.statuses.sorted { $0.key < $1.key })",
                ])
            #expect(exit.exited && exit.status == 0, "serve exited \(exit)")
            // B keeps its schedule's requests and at least 99 % of them are stored (200).
            #expect(b.responses >= 200, "B sent \(b.responses) requests in 15 s")
            #expect(Double(b.ok) >= 0.99 * Double(b.responses), "B: \(b.statuses)")
            // A went past its share of the queue: 429, each with a Retry-After, and some 200s too.
            #expect(a.throttled > 0, "A: \(a.statuses)")
            #expect(a.throttledWithoutRetryAfter == 0)
            #expect(a.ok > 0)
            // Every acknowledged send of either app is stored once; nothing stored was never sent.
            for (app, traffic) in [(Self.flooding, a), (Self.steady, b)] {
                let stored = try database.storedEventIDs(app: app)
                let acknowledged = traffic.acknowledgedIDs()
                #expect(acknowledged.count == traffic.ok * (app == Self.flooding ? 500 : 20))
                #expect(
                    acknowledged.subtracting(stored).isEmpty,
                    "\(app): \(acknowledged.subtracting(stored).count) acknowledged sends missing")
                #expect(stored.subtracting(traffic.attemptedIDs()).isEmpty, "\(app): stored sends that were never sent")
            }
            #expect(try database.storedTwice() == 0)
        }
    }
}
