import Foundation
import TestSupport
import Testing

@testable import IngestServer

@Suite("Concurrent clients")
struct ConcurrencyTests {
    /// Clients post batches and re-post some of their own earlier batches (a retry after a lost
    /// response). Every valid event is stored exactly once, and the answers add up to it.
    @Test func exactTotalsUnderConcurrentLoad() throws {
        let harness = try Harness { config in
            config.http.threads = 4
            config.writerCount = 2
        }
        let clients = 8
        let requestsPerClient = 24
        let eventsPerRequest = 10
        let results = (0..<clients).map { client in
            Background { () throws -> (accepted: Int, duplicates: Int, resent: Int) in
                var totals = (accepted: 0, duplicates: 0, resent: 0)
                var earlier: [[UInt8]] = []
                let connection = try harness.connect()
                for request in 0..<requestsPerClient {
                    let body: [UInt8]
                    if request % 4 == 3, let previous = earlier.randomElement() {
                        body = previous
                        totals.resent += eventsPerRequest
                    } else {
                        body = Fixtures.telemetry(count: eventsPerRequest)
                        earlier.append(body)
                    }
                    let headers = [
                        ("Content-Type", "application/json"), ("Authorization", "Bearer \(TestKeys.telemetry)"),
                    ]
                    // Half the clients keep their connection, half open one per request.
                    let reply: RawReply
                    if client % 2 == 0 {
                        connection.write(RawRequest.make("POST", "/v1/telemetry", headers: headers, body: body))
                        reply = try connection.readReply()
                    } else {
                        reply = try harness.request("POST", "/v1/telemetry", headers: headers, body: body)
                    }
                    guard reply.status == 200, let accepted = reply.accepted, let duplicates = reply.duplicates else {
                        throw RawHTTPError(
                            description: "client \(client) request \(request): \(reply.status) \(reply.text)")
                    }
                    totals.accepted += accepted
                    totals.duplicates += duplicates
                }
                return totals
            }
        }
        let totals = try results.map { try $0.value() }
        let accepted = totals.reduce(0) { $0 + $1.accepted }
        let duplicates = totals.reduce(0) { $0 + $1.duplicates }
        let resent = totals.reduce(0) { $0 + $1.resent }
        #expect(accepted + duplicates == clients * requestsPerClient * eventsPerRequest)
        #expect(duplicates == resent)
        #expect(accepted == (try harness.storedCount))
        let metrics = try harness.get("/metrics").text
        #expect(metrics.contains("pushledger_events_total{kind=\"telemetry\",result=\"accepted\"} \(accepted)\n"))
        #expect(
            metrics.contains(
                """
                pushledger_http_requests_total{endpoint=\"/v1/telemetry\",status=\"200\"} \
                \(clients * requestsPerClient)\n
                """
            ))
    }
}
