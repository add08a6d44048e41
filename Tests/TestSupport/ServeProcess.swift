import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `pushledger` child process of the test, so signals (SIGTERM, SIGKILL) hit it and never the
/// test process. Its stderr (the structured log) goes to a file the test can read.
public class PushLedgerProcess: @unchecked Sendable {
    public let log: URL
    let process: Process

    /// Starts `pushledger arguments…` with `environment` (and PATH); `name` prefixes the log file.
    init(name: String, arguments: [String], environment: [String: String]) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = arguments
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { mine, _ in mine }
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Kills a process the test left running; the log file goes too.
    deinit {
        if isRunning { kill(pid, SIGKILL) }
        ChildExit.wait(process)
        try? FileManager.default.removeItem(at: log)
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { ChildExit.poll(process) == nil }
    public var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Sends `signal` to the process.
    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to end: (exited normally, status or signal number).
    @discardableResult
    public func waitForExit() -> (exited: Bool, status: Int32) {
        ChildExit.wait(process)
    }
}

/// `pushledger serve` as a child process of the test.
public final class ServeProcess: PushLedgerProcess, @unchecked Sendable {
    public let port: UInt16

    /// Starts `pushledger serve --listen 127.0.0.1:PORT extra…` against `databaseURL` and waits
    /// until it accepts connections. `port` nil picks a free one; pass the old one to restart.
    public init(databaseURL: String, port: UInt16? = nil, arguments: [String] = []) throws {
        guard let port = port ?? Self.freePort() else { throw RawHTTPError(description: "no free port") }
        self.port = port
        try super.init(
            name: "serve-\(port)", arguments: ["serve", "--listen", "127.0.0.1:\(port)"] + arguments,
            environment: [
                "DATABASE_URL": databaseURL,
                "PUSHLEDGER_SQL_DIR": TestDatabase.repositoryRoot.appendingPathComponent("sql").path,
            ])
        let process = process
        guard Self.waitForListener(port: port, while: { ChildExit.poll(process) == nil }) else {
            throw RawHTTPError(description: "serve never listened: \(logText)")
        }
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Resident memory now and its peak so far, in bytes (`VmRSS`, `VmHWM` of /proc/PID/status).
    public func memory() -> (rss: Int, peak: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func kibibytes(_ field: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else {
                return nil
            }
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        guard let rss = kibibytes("VmRSS"), let peak = kibibytes("VmHWM") else { return nil }
        return (rss << 10, peak << 10)
    }

    /// A port free now on 127.0.0.1, below the kernel's ephemeral range (the rule of
    /// scripts/free-port.sh: a client's outgoing connection can hold a port in that range, and a
    /// server then cannot bind it), scanned from a random point and checked by binding it. Never
    /// one of the Patroni test cluster's block, whose killed nodes come back on their own ports,
    /// nor one of `taken` (picked for another listener of the same process, not bound yet).
    public static func freePort(except taken: Set<UInt16> = []) -> UInt16? {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
        let low = 20_000
        let ephemeral = (range?.split(whereSeparator: \.isWhitespace).first).flatMap { Int($0) } ?? 0
        let high = ephemeral > low ? ephemeral - 1 : 32_767
        let start = Int.random(in: low...high)
        for offset in 0...(high - low) {
            let port = UInt16(low + (start - low + offset) % (high - low + 1))
            if patroniBlock.contains(port) || taken.contains(port) { continue }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var address = loopback(port: port)
            let length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 }
            }
            if bound { return port }
        }
        return nil
    }

    /// scripts/free-port.sh's `--patroni` ports.
    public static let patroniBlock: ClosedRange<UInt16> = 24_320...24_999

    /// Polls until something accepts connections on `port`, while `alive` holds (at most ~60 s).
    public static func waitForListener(port: UInt16, while alive: () -> Bool = { true }) -> Bool {
        for _ in 0..<1_200 where alive() {
            guard let fd = try? RawHTTPConnection.connectSocket(port: port) else {
                usleep(50_000)
                continue
            }
            close(fd)
            return true
        }
        return false
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
