import Foundation
import Synchronization
import TestSupport

/// Sends hostile requests from client threads, each on a connection of its own, and judges
/// every answer against the request's expectation.
enum HostileRun {
    struct Tally: Sendable {
        var tried = 0
        var statuses: [Int: Int] = [:]
        var serverErrors = 0
        /// Connections that ended without the answer that was due.
        var dropped = 0
        /// Slow clients the server closed (or answered 408).
        var slowClosed = 0
        /// Requests that were not HTTP at all, closed without an answer.
        var notHTTPClosed = 0
        var violations = 0
        /// The first few violations, for the failure message.
        var examples: [String] = []
        /// Violations per category and variant (the part of a failure message that says where to look).
        var byVariant: [String: Int] = [:]

        mutating func merge(_ other: Tally) {
            tried += other.tried
            statuses.merge(other.statuses, uniquingKeysWith: +)
            serverErrors += other.serverErrors
            dropped += other.dropped
            slowClosed += other.slowClosed
            notHTTPClosed += other.notHTTPClosed
            violations += other.violations
            examples += other.examples.prefix(max(0, 10 - examples.count))
            byVariant.merge(other.byVariant, uniquingKeysWith: +)
        }

        var variantSummary: String {
            byVariant.keys.sorted().map { "\($0): \(byVariant[$0]!)" }.joined(separator: "\n")
        }

        var statusSummary: String { statuses.keys.sorted().map { "\($0):\(statuses[$0]!)" }.joined(separator: ",") }
    }

    /// Posts `requests` from `threads` threads (request i goes to thread i % threads).
    static func run(_ requests: [HostileRequest], port: UInt16, threads: Int) -> Background<Tally> {
        Background {
            let workers = (0..<threads).map { thread in
                Background {
                    var tally = Tally()
                    for index in stride(from: thread, to: requests.count, by: threads) {
                        judge(requests[index], port: port, into: &tally)
                    }
                    return tally
                }
            }
            var total = Tally()
            for worker in workers { total.merge(try worker.value()) }
            return total
        }
    }

    static func judge(_ request: HostileRequest, port: UInt16, into tally: inout Tally) {
        tally.tried += 1
        func violation(_ what: String) {
            tally.violations += 1
            tally.byVariant["\(request.category)/\(request.variant)", default: 0] += 1
            if tally.examples.count < 10 { tally.examples.append("\(request.category): \(what)") }
        }
        guard let connection = try? RawHTTPConnection(port: port, receiveTimeout: 30) else {
            return violation("connect refused")
        }
        let reply: RawReply?
        switch request.delivery {
        case .whole:
            connection.write(request.bytes)
            reply = try? connection.readReply()
        case .headFirst(let headBytes):
            connection.write(Array(request.bytes.prefix(headBytes)))
            reply = try? connection.readReply()
        case .trickle(let count, let intervalMs):
            if intervalMs == 0 {
                connection.write(Array(request.bytes.prefix(count)))
            } else {
                for byte in request.bytes.prefix(count) {
                    guard connection.write([byte]) else { break }
                    usleep(UInt32(intervalMs * 1_000))
                }
            }
            switch connection.waitForEnding() {
            case .closed: tally.slowClosed += 1
            case .reply(let status) where status == 408: tally.slowClosed += 1
            case .reply(let status): violation("slow client answered \(status)")
            case .nothing: violation("slow client never closed by the server")
            }
            return
        }
        guard let reply else {
            if case .refusedOrClosed = request.expect { return tally.notHTTPClosed += 1 }
            tally.dropped += 1
            return violation("connection ended without an answer")
        }
        tally.statuses[reply.status, default: 0] += 1
        if reply.status >= 500 { tally.serverErrors += 1 }
        let refused = (400..<500).contains(reply.status)
        // Answers of the service carry {"error", "message"}; garbage HTTP is refused by libmicrohttpd itself.
        if refused, request.category != "http_garbage", reply.json?["error"] == nil || reply.json?["message"] == nil {
            return violation("\(reply.status) without an error body: \(reply.text.prefix(200))")
        }
        switch request.expect {
        case .refused where !refused, .refusedOrClosed where !refused:
            violation("answered \(reply.status): \(reply.text.prefix(200))")
        case .nothingAccepted where !refused:
            let accepted = reply.json?["accepted"] as? Int, duplicates = reply.json?["duplicates"] as? Int
            if reply.status != 200 || accepted != 0 || duplicates != 0 {
                violation("answered \(reply.status): \(reply.text.prefix(200))")
            }
        case .closedByServer:
            violation("a slow client's request was delivered whole")
        case .neverServerError where reply.status >= 500:
            violation("answered \(reply.status): \(reply.text.prefix(200))")
        default:
            break
        }
    }
}
