import Foundation
import PushLedgerKit
import PushLedgerSupport

// A stand-in for an app or its extension in the SDK's multi-process tests: records events into
// a storage directory from its own process (so a test can SIGKILL it at any moment) and prints
// `recorded <event id>` after each `record` returned, or flushes once.

let usage = """
    usage: pushledger-kit-probe record --dir DIR --app APP [--count N] [--interval MS] [--receipts FILE] [--endpoint \
    URL]
           pushledger-kit-probe flush --dir DIR --app APP --endpoint URL --key KEY

      record   records N experiment exposures (default 100), or one notification_received per
               notification id in FILE (one UUID a line); prints `recorded <event id>` after each;
               --interval waits MS milliseconds between records (a test then kills it mid-way
               however fast the disk is)
      flush    flushes the journal once; prints `flushed accepted=A duplicates=D rejected=R`
               or `incomplete <reason>` (exit 1)
    """

/// Ends the probe: bad usage, or `unavailable` when it could not record or flush at all (a test
/// tells that from an incomplete flush, `failure`).
func fail(_ message: String, _ code: ExitCode = .unavailable) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

/// One line on stdout in one write, so a parent reading it sees whole lines even after a SIGKILL.
func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first, ["record", "flush"].contains(mode) else {
    print(usage)
    exit(arguments.contains("--help") ? .success : .usage)
}
var options: [String: String] = [:]
var index = 1
while index < arguments.count {
    guard arguments[index].hasPrefix("--"), index + 1 < arguments.count else { fail(usage, .usage) }
    options[String(arguments[index].dropFirst(2))] = arguments[index + 1]
    index += 2
}
guard let dir = options["dir"], let app = options["app"] else { fail(usage, .usage) }

var configuration = PushLedger.Configuration(
    appID: app, endpoint: URL(string: options["endpoint"] ?? "http://127.0.0.1:9")!,
    telemetryKey: options["key"] ?? "none",
    storageDirectory: URL(fileURLWithPath: dir))
configuration.appVersion = "1.0.0"
configuration.osVersion = "17.5"
configuration.retry = .init(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.2, maxRetryAfter: 0.2)

do {
    let ledger = try PushLedger(configuration: configuration)
    emit("installation \(ledger.installationID.uuidString.lowercased())")
    if mode == "record" {
        if let file = options["receipts"] {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard let id = UUID(uuidString: String(line)) else { fail("not a UUID: \(line)") }
                let event = try ledger.record(
                    .notificationReceived(notificationID: id, channel: "orders", displayed: true))
                emit("recorded \(event.uuidString.lowercased())")
            }
        } else {
            let interval = UInt32(options["interval"] ?? "0") ?? 0
            for _ in 0..<(Int(options["count"] ?? "100") ?? 100) {
                if interval > 0 { usleep(interval * 1000) }
                let event = try ledger.record(
                    .experimentExposure(experiment: "push_prompt_timing", variant: "first_screen"))
                emit("recorded \(event.uuidString.lowercased())")
            }
        }
    } else {
        do {
            let result = try await ledger.flush()
            emit(
                "flushed accepted=\(result.accepted) duplicates=\(result.duplicates) rejected=\(result.rejected.count)")
        } catch {
            emit("incomplete \(error)")
            exit(.failure)
        }
    }
} catch {
    fail("pushledger-kit-probe: \(error)")
}
