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

        @Test func stalledBodiesAreCutOffCappedAndShed() throws {
            let database = try FaultDatabase.fresh()
            // Idle timeout far beyond the upload deadline: only the deadline's timer can close them.
            let server = try ServeProcess(
                databaseURL: database.url,
                arguments: [
                    "--timeout", "60", "--upload-deadline", "2", "--per-address-uploads", "3", "--connections", "16",
                ])

            // The deadline: a stalled body is closed within about 2 s of its headers.
            let started = Date()
            let stalled = try Self.stalledUpload(port: server.port, key: database.telemetryKey)
            let ended = stalled.waitForEnding()
            let lifetime = Date().timeIntervalSince(started)
            #expect(ended == .closed || ended == .reply(408), "\(ended)")
            #expect(lifetime < 10, "a stalled body lived \(lifetime) s")

            // The per-address cap: three uploads in progress, the fourth is answered 429 at once.
            let three = try (0..<3).map { _ in try Self.stalledUpload(port: server.port, key: database.telemetryKey) }
            usleep(200_000)
            let fourth = try Self.stalledUpload(port: server.port, key: database.telemetryKey)
            let refused = try fourth.readReply()
            #expect(refused.status == 429 && refused.json?["error"] as? String == "too_many_uploads", "\(refused.text)")
            #expect(refused.header("Retry-After") != nil)
            for connection in three { _ = connection.waitForEnding() }

            // Shedding: a server of 16 connections, 16 uploads stalled (no per-address cap in the
            // way, a long deadline). Without shedding uploads the limit would refuse every new
            // client; the uploads in progress longest are closed instead and ordinary requests get in.
            let crowded = try ServeProcess(
                databaseURL: database.url,
                arguments: [
                    "--timeout", "60", "--upload-deadline", "60", "--per-address-uploads", "64", "--connections", "16",
                ])
            var uploads: [RawHTTPConnection] = []
            for _ in 0..<16 {
                uploads.append(try Self.stalledUpload(port: crowded.port, key: database.telemetryKey))
                usleep(20_000)
            }
            usleep(300_000)
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
