import Foundation
import Postgres
import PushLedgerSupport
import Simulator
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Three `pushledger serve` processes on one database behind nginx running
/// `deploy/nginx/pushledger.conf`: the ingestors are interchangeable, a killed one costs
/// retries and nothing else, and the ingestors see the phone's address, not the proxy's.
@Suite("Ingestors behind nginx", .serialized)
struct IngestorsBehindNginxTests {
    static func ingestors(_ url: String, count: Int) throws -> [ServeProcess] {
        try (0..<count).map { _ in
            try ServeProcess(
                databaseURL: url,
                arguments: ["--trusted-proxy", NginxProcess.proxyAddress, "--threads", "2", "--writers", "1"])
        }
    }

    /// Phrases of nginx's error log for a request that was out to an ingestor when it died: still
    /// writing a body the frozen ingestor's socket had no room for, or waiting for the answer.
    static let inFlightPhrases = ["while sending request to upstream", "while reading response header from upstream"]

    @Test func aFleetPostedThroughNginxIsStoredOnceAcrossKillsOfTwoIngestors() throws {
        let url = try TestDatabase.fresh(prefix: "nginx")
        let connection = try Connection.connect(url: url)
        let fleet = ScaleFleet(installs: 500, seed: 20)
        try fleet.addKeys(connection)
        var servers = try Self.ingestors(url, count: 3)
        let nginx = try NginxProcess(upstreams: servers.map(\.port))
        // What the fleet will post, to place the kills inside the run: in its telemetry, many
        // small batches (its sends, posted after every telemetry batch is answered, are a few
        // large ones, and a frozen ingestor may get none of them).
        let expected = Simulation.generate(fleet.config).truth

        let run = Background { try fleet.post(to: nginx.baseURL, threads: 6) }
        var killed: [UInt16] = []
        for round in 1...2 {
            // Polled every 20 ms: each poll is a count on the database being written.
            while !run.isFinished, ((try? fleet.storedEvents(connection)) ?? 0) < round * expected.telemetryEvents / 3 {
                usleep(20_000)
            }
            // Another ingestor each round: nginx sets one that failed aside for its fail_timeout
            // (10 s), longer than the whole run, so a restarted one gets no request in it.
            let victim = servers[round]
            guard Self.freezeWithARequestInFlight(victim, while: { !run.isFinished }) else { break }
            victim.send(SIGKILL)
            let exit = victim.waitForExit()
            #expect(!exit.exited && exit.status == SIGKILL)
            killed.append(victim.port)
            servers[round] = try ServeProcess(
                databaseURL: url, port: victim.port,
                arguments: ["--trusted-proxy", NginxProcess.proxyAddress, "--threads", "2", "--writers", "1"])
        }
        let (summary, truth) = try run.value()
        #expect(killed.count == 2, "the post ended before both kills")
        // Requests were in flight on each killed ingestor (nginx saw it die mid-request; the run
        // is over, so nginx has answered and logged every one); nginx did not resend them, the
        // phones did, and the ledger below has each event once.
        let lost = nginx.errorLog.split(separator: "\n")
            .filter { line in line.contains("[error]") && Self.inFlightPhrases.contains { line.contains($0) } }
        let inFlight = Self.inFlightPhrases.map { phrase in lost.filter { $0.contains(phrase) }.count }
        for port in killed {
            #expect(
                lost.contains { $0.contains("upstream: \"http://127.0.0.1:\(port)/") },
                "no request in flight on the ingestor killed on port \(port): \(nginx.errorLog)")
        }
        #expect(truth == expected)
        // Every event of the truth is stored, once; every send is classified as the truth says.
        #expect(try fleet.storedEvents(connection) == truth.telemetryEvents + truth.sends)
        #expect(
            try connection.query("select count(*) from sends where app_id = \(truth.appID)")[0].decode(0, as: Int.self)
                == truth.sends)
        #expect(try StoredEvents.storedTwice(connection) == 0)
        #expect(try ScaleFleet.outcomes(connection, truth) == ScaleFleet.outcomes(truth))
        #expect(summary.accepted + summary.duplicates == summary.eventsPosted)
        Logger(component: "scale-tests").info(
            "nginx figures",
            [
                "kills": killed.count, "requests": summary.requests, "retries": summary.retries,
                "events": summary.eventsPosted,
                "duplicates": summary.duplicates, "in_flight_sending": inFlight[0], "in_flight_reading": inFlight[1],
            ])
        for server in servers { #expect(server.isRunning) }
        #expect(!nginx.errorLog.contains("[emerg]"))
    }

    /// Freezes `server` (SIGSTOP) until nginx has handed it a request it has not read, so a kill
    /// then lands with a request in flight every time; false once `going` is false. A frozen
    /// ingestor may hold the one request the fleet waits for: when nothing arrives for a second
    /// it is let go on (SIGCONT) and frozen again a little later.
    static func freezeWithARequestInFlight(_ server: ServeProcess, while going: () -> Bool) -> Bool {
        while going() {
            server.send(SIGSTOP)
            for _ in 0..<200 where going() {
                if hasUnreadRequest(port: server.port) { return true }
                usleep(5_000)
            }
            server.send(SIGCONT)
            usleep(50_000)
        }
        return false
    }

    /// True when a socket of `port` on 127.0.0.1 holds what its (stopped) process has not
    /// taken: request bytes on a connection, or connections waiting to be accepted on the
    /// listening socket (`/proc/net/tcp`: local address, state, tx_queue:rx_queue).
    static func hasUnreadRequest(port: UInt16) -> Bool {
        // Read to the end: String(contentsOfFile:) stops after the first 4 KB of a /proc file,
        // about 25 sockets, and the ingestor's may come after them.
        guard let handle = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return false }
        defer { try? handle.close() }
        let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let local = String(format: "0100007F:%04X", port)
        return table.split(separator: "\n").dropFirst().contains { line in
            let fields = line.split(separator: " ")
            guard fields.count > 4, fields[1] == local else { return false }
            return fields[4].split(separator: ":").last.map { UInt64($0, radix: 16) ?? 0 } ?? 0 > 0
        }
    }

    @Test func theIngestorLogsThePhonesAddressAndIgnoresAForgedOne() throws {
        let url = try TestDatabase.fresh(prefix: "nginx")
        let server = try ServeProcess(databaseURL: url, arguments: ["--trusted-proxy", NginxProcess.proxyAddress])
        let nginx = try NginxProcess(upstreams: [server.port])
        func post(port: UInt16, forwardedFor: String?) throws -> Int {
            let connection = try RawHTTPConnection(port: port)
            var headers = [
                ("Authorization", "Bearer pl_t_not-a-key-of-this-database"), ("Content-Type", "application/json"),
            ]
            if let forwardedFor { headers.append(("X-Forwarded-For", forwardedFor)) }
            connection.write(RawRequest.make("POST", "/v1/telemetry", headers: headers, body: Array("{}".utf8)))
            return try connection.readReply().status
        }
        // Through nginx: the phone (127.0.0.1) and a forged hop before it.
        #expect(try post(port: nginx.port, forwardedFor: "203.0.113.7") == 401)
        // Directly from an untrusted peer: the header is not believed.
        #expect(try post(port: server.port, forwardedFor: "198.51.100.9") == 401)
        waitUntil { server.logText.components(separatedBy: "unknown key").count >= 3 }
        let lines = server.logText.split(separator: "\n").filter { $0.contains("unknown key") }
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains("client=127.0.0.1") }, "\(lines)")
        #expect(
            !lines.contains {
                $0.contains("203.0.113.7") || $0.contains("198.51.100.9") || $0.contains(NginxProcess.proxyAddress)
            })
    }

    @Test func aBodyOverTheServersLimitIsRefusedByNginxInTheContractsShape() throws {
        let url = try TestDatabase.fresh(prefix: "nginx")
        let server = try ServeProcess(databaseURL: url)
        let nginx = try NginxProcess(upstreams: [server.port])
        let limit = 1 << 20  // serve --max-body's default, which pushledger.conf's client_max_body_size matches
        for (size, proxied) in [(limit + 1, false), (limit, true)] {
            let connection = try RawHTTPConnection(port: nginx.port)
            connection.write(
                RawRequest.make(
                    "POST", "/v1/telemetry",
                    headers: [("Authorization", "Bearer pl_t_x"), ("Content-Type", "application/json")],
                    body: [UInt8](repeating: 32, count: size)))
            let reply = try connection.readReply()
            // Over the limit nginx answers 413 itself; at the limit the ingestor answers (401: the key).
            #expect(reply.status == (proxied ? 401 : 413))
            #expect(reply.json?["error"] as? String == (proxied ? "unauthorized" : "body_too_large"))
        }
    }
}
