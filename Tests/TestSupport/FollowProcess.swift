import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `pushledger rollup --follow` as a child process of the test, so signals (SIGTERM, SIGKILL)
/// hit it and never the test process. Its stderr (the structured log) goes to a file.
public final class FollowProcess: @unchecked Sendable {
    public let log: URL
    public let metricsPort: UInt16?
    private let process: Process

    /// Starts `pushledger rollup --follow --freshness FRESHNESS` against `databaseURL`, with
    /// `--metrics-listen 127.0.0.1:PORT` when `metrics` (a free port).
    public init(databaseURL: String, freshness: String, metrics: Bool = false) throws {
        metricsPort = metrics ? ServeProcess.freePort() : nil
        log = FileManager.default.temporaryDirectory.appendingPathComponent("follow-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = ["rollup", "--follow", "--freshness", freshness] + (metricsPort.map { ["--metrics-listen", "127.0.0.1:\($0)"] } ?? [])
        process.environment = ["PATH": "/usr/bin:/bin", "DATABASE_URL": databaseURL]
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Kills a follower the test left running; the log file goes too.
    deinit {
        if isRunning { kill(pid, SIGKILL) }
        ChildExit.wait(process)
        try? FileManager.default.removeItem(at: log)
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { ChildExit.poll(process) == nil }
    public var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Log lines whose message is `message` (the `msg=` field, quoted or not).
    public func lines(_ message: String) -> [Substring] {
        let quoted = message.contains(" ") ? "msg=\"\(message)\"" : "msg=\(message)"
        return logText.split(separator: "\n").filter { $0.contains(quoted + " ") || $0.hasSuffix(quoted) }
    }

    /// Waits up to `timeout` seconds until `message` was logged `count` times.
    @discardableResult
    public func waitFor(_ message: String, count: Int = 1, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if lines(message).count >= count { return true }
            usleep(50_000)
        }
        return false
    }

    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to end: (exited normally, status or signal number).
    @discardableResult
    public func waitForExit() -> (exited: Bool, status: Int32) { ChildExit.wait(process) }
}
