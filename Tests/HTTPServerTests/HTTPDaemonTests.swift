import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// A handler that answers with the body length, from another thread (like a writer would).
private final class EchoHandler: HTTPHandler {
    /// `/hold` requests wait for this before they are answered.
    let release = DispatchSemaphore(value: 0)

    func decide(_ head: RequestHead) -> HeadDecision {
        head.path == "/early"
            ? .respond(.content(418, "early", type: "text/plain")) : .readBody(limit: 1000, context: head.path)
    }
    func bodyTooLarge(_ head: RequestHead) -> HTTPResponse { .content(413, "too large", type: "text/plain") }
    func handle(_ head: RequestHead, body: [UInt8], context: any Sendable, reply: any ReplySlot) {
        let response = HTTPResponse.content(200, "\(context) \(body.count)", type: "text/plain")
        if head.path == "/sync" {
            reply.send(response)
        } else if head.path == "/hold" {
            DispatchQueue.global().async { [release] in
                release.wait()
                reply.send(response)
            }
        } else {
            DispatchQueue.global().async { reply.send(response) }
        }
    }
    func responded(_ head: RequestHead, status: Int) {}
    func tooManyUploads(_ head: RequestHead) -> HTTPResponse { .content(429, "too many uploads", type: "text/plain") }
    func commonHeaders(_ head: RequestHead) -> [(name: String, value: String)] { [("X-Path", head.path)] }
}

@Suite("HTTP daemon on libmicrohttpd")
struct HTTPDaemonTests {
    private func withDaemon(_ body: (UInt16) throws -> Void) throws {
        try withDaemonAndHandler { port, _, _ in try body(port) }
    }

    private func withDaemonAndHandler(_ body: (UInt16, HTTPDaemon, EchoHandler) throws -> Void) throws {
        var limits = HTTPServerLimits()
        limits.threads = 2
        let handler = EchoHandler()
        let daemon = HTTPDaemon(handler: handler)
        try daemon.start(host: "127.0.0.1", port: 0, limits: limits)
        defer { daemon.stop() }
        try body(daemon.port, daemon, handler)
    }

    @Test func afterQuiesceTheAnswerInFlightClosesItsConnection() throws {
        try withDaemonAndHandler { port, daemon, handler in
            let connection = try RawHTTPConnection(port: port)
            connection.write(RawRequest.make("POST", "/hold", body: Array("x".utf8)))
            waitUntil { daemon.requestsInFlight == 1 }
            daemon.quiesce()
            #expect(throws: (any Error).self) { try RawHTTPConnection(port: port) }
            handler.release.signal()
            let reply = try connection.readReply()
            #expect(reply.text == "/hold 1")
            #expect(reply.header("Connection")?.lowercased() == "close")
            #expect(connection.isClosedByPeer())
        }
    }

    @Test func answersSynchronouslyAndAfterSuspension() throws {
        try withDaemon { port in
            let connection = try RawHTTPConnection(port: port)
            connection.write(RawRequest.make("POST", "/sync", body: Array("abc".utf8)))
            let reply = try connection.readReply()
            #expect(reply.text == "/sync 3" && reply.header("X-Path") == "/sync")
            connection.write(RawRequest.make("POST", "/async", body: Array("abcd".utf8)))
            #expect(try connection.readReply().text == "/async 4")
        }
    }

    @Test func declaredLengthOverLimitIsRefusedBeforeTheBody() throws {
        try withDaemon { port in
            let connection = try RawHTTPConnection(port: port)
            connection.write(Array("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n".utf8))
            let refused = try connection.readReply()
            #expect(refused.status == 413 && refused.header("X-Path") == "/x")
        }
    }

    @Test func chunkedBodyOverLimitIsDiscardedAndRefusedAtItsEnd() throws {
        try withDaemon { port in
            let connection = try RawHTTPConnection(port: port)
            connection.write(RawRequest.chunkedHead("/x", headers: []))
            connection.write(RawRequest.chunk([UInt8](repeating: 65, count: 600)))
            connection.write(RawRequest.chunk([UInt8](repeating: 65, count: 600)))
            connection.write(RawRequest.lastChunk)
            #expect(try connection.readReply().status == 413)
        }
    }

    @Test func endlessChunkedBodyIsCutOff() throws {
        try withDaemon { port in
            let connection = try RawHTTPConnection(port: port)
            connection.write(RawRequest.chunkedHead("/x", headers: []))
            var written = 0
            while written < 100_000, connection.write(RawRequest.chunk([UInt8](repeating: 65, count: 500))) {
                written += 500
            }
            #expect(connection.isClosedByPeer())
        }
    }

    @Test func earlyAnswerSkipsTheBody() throws {
        try withDaemon { port in
            let connection = try RawHTTPConnection(port: port)
            connection.write(Array("POST /early HTTP/1.1\r\nHost: t\r\nContent-Length: 500\r\n\r\n".utf8))
            #expect(try connection.readReply().status == 418)
        }
    }
}

/// Quiescing while connections come and go, again and again: with libmicrohttpd's epoll
/// loop this aborted the whole process in most runs (a race inside libmicrohttpd, see
/// HTTPDaemon.start); a failure here is that abort, not an expectation.
@Suite("HTTP daemon quiesce under churn")
struct HTTPDaemonQuiesceTests {
    @Test func quiescingUnderConnectionChurnNeverAborts() throws {
        var limits = HTTPServerLimits()
        limits.threads = 4
        limits.connectionLimit = 8
        let port = try #require(ServeProcess.freePort())
        let done = Atomic<Bool>(false)
        let answered = Atomic<Int>(0)
        let clients = (0..<4).map { _ in
            Thread {
                while !done.load(ordering: .relaxed) {
                    guard let connection = try? RawHTTPConnection(port: port, receiveTimeout: 2) else { continue }
                    connection.write(RawRequest.make("POST", "/sync", body: Array("x".utf8)))
                    if (try? connection.readReply()) != nil { answered.add(1, ordering: .relaxed) }
                }
            }
        }
        clients.forEach { $0.start() }
        defer { done.store(true, ordering: .relaxed) }
        // 300 rounds, and more until a client was answered in one: a loaded machine's clients may
        // miss the first daemons' few milliseconds (at most a minute of rounds).
        let giveUp = Date().addingTimeInterval(60)
        var rounds = 0
        while rounds < 300 || (answered.load(ordering: .relaxed) == 0 && Date() < giveUp) {
            rounds += 1
            let daemon = HTTPDaemon(handler: EchoHandler())
            // The port may linger a moment after the last stop.
            let started = eventually(within: 60, every: 0.001) {
                (try? daemon.start(host: "127.0.0.1", port: port, limits: limits)) != nil
            }
            try #require(started)
            usleep(2_000)
            daemon.quiesce()
            usleep(500)
            daemon.stop()
        }
        #expect(answered.load(ordering: .relaxed) > 0)
    }
}

@Suite("HTTP daemon start failures")
struct HTTPDaemonStartTests {
    @Test func aPortInUseOrABadAddressFailsToStart() throws {
        let first = HTTPDaemon(handler: EchoHandler())
        try first.start(host: "127.0.0.1", port: 0, limits: HTTPServerLimits())
        defer { first.stop() }
        let second = HTTPDaemon(handler: EchoHandler())
        #expect(throws: HTTPServerError.self) {
            try second.start(host: "127.0.0.1", port: first.port, limits: HTTPServerLimits())
        }
        #expect(throws: HTTPServerError.self) {
            try second.start(host: "localhost:80", port: 0, limits: HTTPServerLimits())
        }
    }
}
