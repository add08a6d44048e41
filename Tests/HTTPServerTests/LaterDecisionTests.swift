import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// Decides `/later/…` requests on another thread once the test lets it: `/later/refuse` is
/// answered from the headers, `/later/read` reads its body; `/now/…` decides inside `start`.
private final class LaterHandler: HTTPHandler {
    let release = DispatchSemaphore(value: 0)
    let waiting = Atomic<Int>(0)

    func decide(_ head: RequestHead) -> HeadDecision {
        guard head.path.hasPrefix("/later/") || head.path.hasPrefix("/now/") else {
            return .readBody(limit: 1000, context: "plain")
        }
        let decision: HeadDecision =
            head.path.hasSuffix("/refuse")
            ? .respond(.content(403, "refused", type: "text/plain"))
            : head.path.hasSuffix("/nested") ? .later({ _ in }) : .readBody(limit: 10, context: "decided later")
        if head.path.hasPrefix("/now/") { return .later { $0.decide(decision) } }
        return .later { [self] slot in
            waiting.add(1, ordering: .relaxed)
            DispatchQueue.global().async { [self] in
                release.wait()
                slot.decide(decision)
            }
        }
    }
    func bodyTooLarge(_ head: RequestHead) -> HTTPResponse { .content(413, "too large", type: "text/plain") }
    func handle(_ head: RequestHead, body: [UInt8], context: any Sendable, reply: any ReplySlot) {
        reply.send(.content(200, "\(context) \(body.count)", type: "text/plain"))
    }
    func responded(_ head: RequestHead, status: Int) {}
    func commonHeaders(_ head: RequestHead) -> [(name: String, value: String)] { [] }
    func tooManyUploads(_ head: RequestHead) -> HTTPResponse { .content(429, "too many uploads", type: "text/plain") }
}

@Suite("Decisions made after the headers, without holding a thread")
struct LaterDecisionTests {
    private func withDaemon(threads: Int = 2, _ body: (UInt16, LaterHandler) throws -> Void) throws {
        var limits = HTTPServerLimits()
        limits.threads = threads
        let handler = LaterHandler()
        let daemon = HTTPDaemon(handler: handler)
        try daemon.start(host: "127.0.0.1", port: 0, limits: limits)
        defer { daemon.stop() }
        try body(daemon.port, handler)
    }

    @Test func aLaterDecisionAnswersFromTheHeadersOrReadsTheBody() throws {
        try withDaemon { port, handler in
            let refused = try RawHTTPConnection(port: port)
            refused.write(RawRequest.make("POST", "/later/refuse", body: Array("abc".utf8)))
            let read = try RawHTTPConnection(port: port)
            read.write(RawRequest.make("POST", "/later/read", body: Array("abcd".utf8)))
            let tooLarge = try RawHTTPConnection(port: port)
            tooLarge.write(RawRequest.make("POST", "/later/read", body: Array("more than ten".utf8)))
            waitUntil { handler.waiting.load(ordering: .relaxed) == 3 }
            for _ in 0..<3 { handler.release.signal() }
            #expect(try refused.readReply().status == 403)
            #expect(try read.readReply().text == "decided later 4")
            #expect(try tooLarge.readReply().status == 413)
            // The connection serves its next request as usual.
            read.write(RawRequest.make("POST", "/plain", body: Array("xy".utf8)))
            #expect(try read.readReply().text == "plain 2")
        }
    }

    @Test func aDecisionMadeInsideStartIsCarriedOutAtOnce() throws {
        try withDaemon { port, _ in
            let connection = try RawHTTPConnection(port: port)
            connection.write(RawRequest.make("POST", "/now/read", body: Array("ab".utf8)))
            #expect(try connection.readReply().text == "decided later 2")
            connection.write(RawRequest.make("POST", "/now/refuse", body: Array("ab".utf8)))
            #expect(try connection.readReply().status == 403)
            let nested = try RawHTTPConnection(port: port)
            nested.write(RawRequest.make("POST", "/now/nested", body: Array("ab".utf8)))
            #expect(try nested.readReply().status == 500)
        }
    }

    @Test func requestsWaitingForADecisionHoldNoThread() throws {
        // One thread: were a waiting request to hold it, the plain request could not be served.
        try withDaemon(threads: 1) { port, handler in
            let waiting = try (0..<20).map { _ in try RawHTTPConnection(port: port) }
            for connection in waiting { connection.write(RawRequest.make("POST", "/later/read", body: [1, 2, 3])) }
            waitUntil { handler.waiting.load(ordering: .relaxed) == 20 }
            let plain = try RawHTTPConnection(port: port)
            plain.write(RawRequest.make("POST", "/plain", body: Array("x".utf8)))
            #expect(try plain.readReply().text == "plain 1")
            for _ in waiting { handler.release.signal() }
            for connection in waiting { #expect(try connection.readReply().text == "decided later 3") }
        }
    }
}
