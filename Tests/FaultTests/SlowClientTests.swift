import Foundation
import Synchronization
import TestSupport
import Testing

extension MachineLoad {
    /// An attacker's slow connections against the real server: 1,000 connections over 250 loopback
    /// source addresses, each trickling one header line a second and reconnecting when closed,
    /// while an ordinary client on 127.0.0.1 posts real batches. Every ordinary request is answered
    /// while the server sheds at its connection limit, the slow connections are closed by the header
    /// deadline, memory stays bounded. Nothing is timed against the clock: the header deadline is
    /// told from the other ways a connection ends by the server's own count and by the order of
    /// events, so a loaded machine that serves slowly still passes.
    @Suite("Slow clients")
    struct SlowClientTests {
        static let attackers = 1_000
        static let ordinaryRequests = 30
        /// The witness upload's deadline: four header deadlines (5 s), below the idle timeout. The
        /// margin of three header deadlines over the last trickled connection's covers accepts
        /// delayed on a machine loaded three times over; a header deadline four times too long
        /// (or never enforced) still closes trickled connections after the witness.
        static let uploadDeadline = 20

        @Test func trickledHeadersCannotCrowdOutOrdinaryClients() throws {
            try Self.raiseOpenFileLimit(to: 4_096)
            let database = try FaultDatabase.fresh()
            let server = try ServeProcess(
                databaseURL: database.url, arguments: ["--upload-deadline", "\(Self.uploadDeadline)"])
            let stop = Atomic<Bool>(false)
            let closedByServer = Atomic<Int>(0)
            let attacker = Background { [port = server.port] in
                var trickle = Trickle(port: port)
                while !stop.load(ordering: .relaxed) {
                    trickle.round(target: Self.attackers)
                    closedByServer.store(trickle.closedByServer, ordering: .relaxed)
                    usleep(1_000_000)
                }
                return trickle
            }
            // The attack holds the server at its limit before the first ordinary request: it sheds.
            let underWay = Date().addingTimeInterval(120)
            waitUntil { (slowConnectionsClosed("shed", port: server.port) ?? 0) > 0 || Date() > underWay }
            let shedBefore = slowConnectionsClosed("shed", port: server.port) ?? 0

            // Ordinary requests until there have been enough of them and the server has closed as
            // many slow connections as the attacker holds, however long a loaded machine takes
            // (at most a few minutes: a server that closes none fails below). Their receive timeout
            // only keeps a broken server from hanging the test: without the guard the first one
            // waited 134 s.
            var latencies: [Double] = []
            var failures: [String] = []
            var n = 0
            let giveUp = Date().addingTimeInterval(180)
            while n < Self.ordinaryRequests
                || (closedByServer.load(ordering: .relaxed) < Self.attackers && Date() < giveUp)
            {
                n += 1
                let began = Date()
                do {
                    let connection = try RawHTTPConnection(port: server.port, receiveTimeout: 60)
                    connection.write(
                        RawRequest.make(
                            "POST", "/v1/telemetry",
                            headers: [
                                ("Content-Type", "application/json"),
                                ("Authorization", "Bearer \(database.telemetryKey)"),
                            ],
                            body: Fixtures.telemetry(count: 20)))
                    let reply = try connection.readReply()
                    if reply.status != 200 { failures.append("\(n): \(reply.status)") }
                } catch {
                    failures.append("\(n): \(error)")
                }
                latencies.append(Date().timeIntervalSince(began))
                usleep(100_000)
            }
            let shedDuring = (slowConnectionsClosed("shed", port: server.port) ?? 0) - shedBefore
            stop.store(true, ordering: .relaxed)
            var trickle = try attacker.value()
            let closedInAttack = trickle.closedByServer

            // The attacker opens no new connection now: once those still waiting to be accepted
            // are in, none is shed, and the ones left, still trickling a line a second (never
            // idle), can only be closed by the header deadline. A witness opened now, its headers
            // complete and its body stalled, is closed at its upload deadline, four header
            // deadlines later: every trickled connection must be closed before it.
            let deadlineBefore = slowConnectionsClosed("deadline", port: server.port) ?? 0
            let left = trickle.sockets.count
            let witness = try SlowBodyTests.stalledUpload(port: server.port, key: database.telemetryKey)
            var rounds = 0
            var lastTrickledClosed = 0
            var witnessClosed: Int?
            while (!trickle.sockets.isEmpty || witnessClosed == nil) && rounds < 120 {
                rounds += 1
                if witnessClosed == nil, witness.hasEnded() { witnessClosed = rounds }
                let before = trickle.sockets.count
                trickle.round(target: 0)
                if trickle.sockets.count < before { lastTrickledClosed = rounds }
                usleep(500_000)
            }
            let deadlineClosed = (slowConnectionsClosed("deadline", port: server.port) ?? 0) - deadlineBefore
            let memory = server.memory()
            trickle.closeAll()
            server.send(SIGTERM)
            _ = server.waitForExit()

            let sorted = latencies.sorted()
            let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
            FaultFigures.logger.info(
                "fault figures",
                [
                    "test": "slow clients", "ordinary_requests": "\(latencies.count)", "failures": "\(failures.count)",
                    "p50_ms": "\(Int(sorted[sorted.count / 2] * 1000))", "p99_ms": "\(Int(p99 * 1000))",
                    "max_ms": "\(Int((sorted.last ?? 0) * 1000))", "slow_connections_opened": "\(trickle.opened)",
                    "slow_closed_by_server": "\(trickle.closedByServer)", "shed_during_ordinary": "\(shedDuring)",
                    "left_after_attack": "\(left)", "closed_at_header_deadline": "\(deadlineClosed)",
                    "longest_slow_s": String(format: "%.1f", trickle.longestLife),
                    "peak_rss_mib": "\((memory?.peak ?? 0) >> 20)",
                ])
            // Every ordinary request answered 200 while the server was shedding slow connections.
            // (Latency is a figure, logged above and kept in docs/reliability.md: timing on a shared
            // machine belongs to benchmarks.)
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            #expect(shedDuring > 0, "the attack did not hold the server at its limit during the ordinary requests")
            #expect(closedInAttack >= Self.attackers)
            // Every slow connection is closed by the server; the last ones at the header deadline
            // (the server's count), all before the witness's upload deadline.
            let neverClosed = trickle.sockets.count
            #expect(neverClosed == 0, "slow connections never closed by the server")
            #expect(deadlineClosed > 1, "closed at a deadline: \(deadlineClosed), the witness's one among them")
            #expect(witnessClosed != nil, "the witness upload was never closed")
            #expect(
                lastTrickledClosed <= (witnessClosed ?? 0),
                "a trickled connection outlived the witness (rounds \(lastTrickledClosed) / \(witnessClosed ?? 0))"
            )
            #expect((memory?.peak ?? .max) < 256 << 20, "peak RSS \((memory?.peak ?? 0) >> 20) MiB")
            #expect(
                try database.count("select count(*)::int8 from event_ids") == (latencies.count - failures.count) * 20)
        }

        /// The open-file limit of this process: 1,000 sockets need more than the usual 1,024 soft limit.
        static func raiseOpenFileLimit(to wanted: rlim_t) throws {
            var limit = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            guard limit.rlim_cur < wanted else { return }
            limit.rlim_cur = min(wanted, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            try #require(limit.rlim_cur >= rlim_t(attackers + 256), "open-file limit \(limit.rlim_cur)")
        }
    }
}

/// The attacker: non-blocking sockets from 127.0.0.2 … 127.0.0.251, a request line and then one
/// header line a round, never the blank line that ends the headers.
private struct Trickle {
    let port: UInt16
    var sockets: [(fd: Int32, opened: Date, established: Bool, lines: Int)] = []
    var closedByServer = 0
    var longestLife = 0.0
    var opened = 0

    init(port: UInt16) { self.port = port }

    mutating func round(target: Int) {
        var alive: [(fd: Int32, opened: Date, established: Bool, lines: Int)] = []
        for var socket in sockets {
            var byte: UInt8 = 0
            let read = recv(socket.fd, &byte, 1, Int32(MSG_DONTWAIT))
            let gone = read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            let line =
                socket.lines == 0 ? "POST /v1/telemetry HTTP/1.1\r\nHost: a\r\n" : "X-Slow-\(socket.lines): 1\r\n"
            let sent = gone ? -1 : send(socket.fd, line, line.utf8.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if sent > 0 {
                socket.established = true
                socket.lines += 1
                alive.append(socket)
            } else if gone || (errno != EAGAIN && errno != ENOTCONN && errno != EWOULDBLOCK) {
                if socket.established {
                    closedByServer += 1
                    longestLife = max(longestLife, Date().timeIntervalSince(socket.opened))
                }
                close(socket.fd)
            } else {
                alive.append(socket)
            }
        }
        sockets = alive
        while sockets.count < target, let fd = connectFrom(source: 2 + opened % 250) {
            sockets.append((fd, Date(), false, 0))
            opened += 1
        }
    }

    private func connectFrom(source: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.\(source)", &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) }
        }
        guard bound == 0, connected == 0 || errno == EINPROGRESS else {
            close(fd)
            return nil
        }
        return fd
    }

    func closeAll() { for socket in sockets { close(socket.fd) } }
}
