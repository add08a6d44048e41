import Foundation
import TestSupport
import Testing

extension MachineLoad {
    /// Bodies trickled after valid headers, against the real server: a body that stops is cut
    /// off by the upload deadline's timer (not at the idle timeout, nor only when its next chunk
    /// comes); one address gets only so many uploads at once; and at the connection limit the
    /// uploads in progress longest are shed so that ordinary requests get in.
    @Suite("Slow bodies")
    struct SlowBodyTests {
        static func stalledUpload(port: UInt16, key: String) throws -> RawHTTPConnection {
            let body = Fixtures.telemetry(count: 5)
            let connection = try RawHTTPConnection(port: port, receiveTimeout: 30)
            let request = RawRequest.make(
                "POST", "/v1/telemetry",
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(key)")], body: body)
            connection.write(Array(request.prefix(request.count - body.count / 2)))
            return connection
        }

        /// `serve` with its operations endpoints on an admin listener of their own: the test
        /// reads `/metrics` without taking a connection of the public listener (or shedding one).
        static func serve(_ database: FaultDatabase, _ arguments: [String]) throws -> (ServeProcess, admin: UInt16) {
            let port = try #require(ServeProcess.freePort())
            let admin = try #require(ServeProcess.freePort(except: [port]))
            let server = try ServeProcess(
                databaseURL: database.url, port: port, arguments: arguments + ["--admin-listen", "127.0.0.1:\(admin)"])
            return (server, admin)
        }

        /// Waits until the server has `count` requests in flight (headers in, not answered; the
        /// scrape that reads it is one more): each stalled upload is under way there, whatever
        /// the machine's load, before the test goes on.
        static func waitForRequestsInFlight(_ count: Int, admin: UInt16) -> Bool {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if metricSample("pushledger_http_requests_in_flight", port: admin) == Double(count + 1) { return true }
                usleep(10_000)
            }
            return false
        }

        @Test func stalledBodiesAreCutOffCappedAndShed() throws {
            let database = try FaultDatabase.fresh()
            // Idle timeout far beyond the upload deadline: only the deadline's timer can close them.
            let (server, admin) = try Self.serve(
                database,
                ["--timeout", "60", "--upload-deadline", "2", "--header-deadline", "6", "--connections", "16"])

            // The deadline: a stalled body is closed by the guard's timer (the server counts it
            // at a deadline; libmicrohttpd's idle timeout is not counted), before a connection
            // opened after it that sends nothing reaches its header deadline, three times longer.
            let started = Date()
            let stalled = try Self.stalledUpload(port: server.port, key: database.telemetryKey)
            #expect(Self.waitForRequestsInFlight(1, admin: admin))
            let silent = try RawHTTPConnection(port: server.port, receiveTimeout: 30)
            var looks = 0
            var stalledEnded: Int?
            var silentEnded: Int?
            var lifetime = 0.0
            while (stalledEnded == nil || silentEnded == nil) && looks < 3_000 {
                looks += 1
                if stalledEnded == nil, stalled.hasEnded() {
                    stalledEnded = looks
                    lifetime = Date().timeIntervalSince(started)
                }
                if silentEnded == nil, silent.hasEnded() { silentEnded = looks }
                usleep(20_000)
            }
            let ended = stalled.waitForEnding()
            #expect(ended == .closed || ended == .reply(408), "\(ended)")
            #expect(stalledEnded != nil && silentEnded != nil, "stalled: \(ended), silent: \(silent.waitForEnding())")
            #expect((stalledEnded ?? .max) <= (silentEnded ?? 0), "the silent connection was closed first")
            #expect(slowConnectionsClosed("deadline", port: admin) == 2)

            // The per-address cap: three uploads in progress, the fourth is answered 429 at once
            // (on a server whose deadline cannot end one of the three while it comes).
            let (capped, cappedAdmin) = try Self.serve(
                database, ["--timeout", "60", "--upload-deadline", "60", "--per-address-uploads", "3"])
            let three = try (0..<3).map { _ in try Self.stalledUpload(port: capped.port, key: database.telemetryKey) }
            #expect(Self.waitForRequestsInFlight(3, admin: cappedAdmin))
            let fourth = try Self.stalledUpload(port: capped.port, key: database.telemetryKey)
            let refused = try fourth.readReply()
            #expect(refused.status == 429 && refused.json?["error"] as? String == "too_many_uploads", "\(refused.text)")
            #expect(refused.header("Retry-After") != nil)
            #expect(three.allSatisfy { !$0.hasEnded() }, "the three uploads are still in progress")

            // Shedding: a server of 16 connections, 16 uploads stalled (no per-address cap in the
            // way, a long deadline). Without shedding uploads the limit would refuse every new
            // client; the uploads in progress longest are closed instead and ordinary requests get in.
            let (crowded, crowdedAdmin) = try Self.serve(
                database,
                ["--timeout", "60", "--upload-deadline", "60", "--per-address-uploads", "64", "--connections", "16"])
            var uploads: [RawHTTPConnection] = []
            let shedFrom = 16 - 16 / 16  // a sixteenth of the connections kept free
            for n in 1...16 {
                uploads.append(try Self.stalledUpload(port: crowded.port, key: database.telemetryKey))
                // Each under way before the next: their order is the order they are shed in.
                #expect(Self.waitForRequestsInFlight(min(n, shedFrom), admin: crowdedAdmin))
            }
            var answered = 0
            for _ in 0..<5 {
                let connection = try RawHTTPConnection(port: crowded.port, receiveTimeout: 10)
                connection.write(
                    RawRequest.make(
                        "POST", "/v1/telemetry",
                        headers: [
                            ("Content-Type", "application/json"), ("Authorization", "Bearer \(database.telemetryKey)"),
                        ],
                        body: Fixtures.telemetry(count: 1)))
                if (try? connection.readReply())?.status == 200 { answered += 1 }
            }
            #expect(answered == 5)
            // The oldest uploads were the ones shed.
            #expect(uploads.prefix(5).allSatisfy { $0.isClosedByPeer() })
            FaultFigures.logger.info(
                "fault figures",
                [
                    "test": "slow bodies", "stalled_body_closed_after_ms": Int(lifetime * 1000),
                    "ordinary_answered": answered,
                ])
        }
    }
}
