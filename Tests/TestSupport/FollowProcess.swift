import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `pushledger rollup --follow` as a child process of the test.
public final class FollowProcess: PushLedgerProcess, @unchecked Sendable {
    public let metricsPort: UInt16?

    /// Starts `pushledger rollup --follow --freshness FRESHNESS` against `databaseURL`, with
    /// `--metrics-listen 127.0.0.1:PORT` when `metrics` (a free port).
    public init(databaseURL: String, freshness: String, metrics: Bool = false) throws {
        metricsPort = metrics ? ServeProcess.freePort() : nil
        try super.init(
            name: "follow",
            arguments: ["rollup", "--follow", "--freshness", freshness]
                + (metricsPort.map { ["--metrics-listen", "127.0.0.1:\($0)"] } ?? []),
            environment: ["DATABASE_URL": databaseURL])
    }

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
}
