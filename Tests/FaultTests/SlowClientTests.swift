import Foundation
import Synchronization
import TestSupport
import Testing

extension MachineLoad {
    /// An attacker's slow connections against the real server: 1,000 connections over 250 loopback
    /// source addresses, each trickling one header line a second and reconnecting when closed,
    /// while an ordinary client on 127.0.0.1 posts real batches. Every ordinary request is answered,
    /// the slow connections are closed by the header deadline, memory stays bounded.
    @Suite("Slow clients")
    struct SlowClientTests {
        static let attackers = 1_000
        static let seconds = 14.0

        @Test func trickledHeadersCannotCrowdOutOrdinaryClients() throws {
            try Self.raiseOpenFileLimit(to: 4_096)
            let database = try FaultDatabase.fresh()
            let server = try ServeProcess(databaseURL: database.url)
            let stop = Atomic<Bool>(false)
            let figures = Mutex<(closed: Int, longest: Double, opened: Int)>((0, 0, 0))
            let attacker = Thread {
                var trickle = Trickle(port: server.port)
                while !stop.load(ordering: .relaxed) {
                    trickle.round(target: Self.attackers)
                    usleep(1_000_000)
                }
                figures.withLock { $0 = (trickle.closedByServer, trickle.longestLife, trickle.opened) }
                trickle.closeAll()
            }
            attacker.start()
            usleep(2_000_000)  // the attack is under way before the first ordinary request

            var latencies: [Double] = []
            var failures: [String] = []
            let start = Date()
            var n = 0
            while Date().timeIntervalSince(start) < Self.seconds - 2 {
                n += 1
                let began = Date()
                do {
                    let connection = try RawHTTPConnection(port: server.port, receiveTimeout: 10)
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
            stop.store(true, ordering: .relaxed)
            while !attacker.isFinished { usleep(10_000) }
            let memory = server.memory()
            server.send(SIGTERM)
            _ = server.waitForExit()

            let sorted = latencies.sorted()
            let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
            let (closed, longest, opened) = figures.withLock { $0 }
            FaultFigures.logger.info(
                "fault figures",
                [
                    "test": "slow clients", "ordinary_requests": "\(latencies.count)", "failures": "\(failures.count)",
                    "p50_ms": "\(Int(sorted[sorted.count / 2] * 1000))", "p99_ms": "\(Int(p99 * 1000))",
                    "max_ms": "\(Int((sorted.last ?? 0) * 1000))", "slow_connections_opened": "\(opened)",
                    "slow_closed_by_server": "\(closed)", "longest_slow_s": String(format: "%.1f", longest),
                    "peak_rss_mib": "\((memory?.peak ?? 0) >> 20)",
                ])
            #expect(latencies.count > 20)
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            // Latency is a figure (logged above, kept in docs/reliability.md), not an assertion: timing
            // on a shared machine belongs to benchmarks. A starved ordinary client fails here anyway,
            // as a timeout of its 10 s receive (without the guard the first one waited 134 s).
            // Every slow connection is closed by the server, none later than the 5 s header deadline
            // plus the reaper's tick and one trickle round.
            #expect(closed >= Self.attackers)
            #expect(longest < 7.5, "a slow connection lived \(longest) s")
            #expect((memory?.peak ?? .max) < 256 << 20, "peak RSS \((memory?.peak ?? 0) >> 20) MiB")
            #expect(
                try database.count("select count(*)::int8 from event_ids") == Int(latencies.count - failures.count) * 20
            )
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
