import Foundation
import Glibc
import PushLedgerKit
import TestSupport
import Testing

@Suite("PushLedgerKit journal")
struct JournalTests {
    @Test func installationIDIsMintedOncePerDirectory() throws {
        let directory = KitFixtures.directory()
        let first = try PushLedger(configuration: KitFixtures.configuration(directory: directory))
        let second = try PushLedger(configuration: KitFixtures.configuration(directory: directory))
        let elsewhere = try PushLedger(configuration: KitFixtures.configuration())
        #expect(first.installationID == second.installationID)
        #expect(first.installationID != elsewhere.installationID)
    }

    @Test func processesStartingTogetherAgreeOnTheInstallationID() throws {
        let directory = KitFixtures.directory()
        let runs = try (0..<4).map { _ in
            try ProbeRun(["record", "--dir", directory.path, "--app", KitFixtures.app, "--count", "1"])
        }
        let ids = Set(
            try runs.map { run in
                run.wait()
                return try #require(run.lines.first { $0.hasPrefix("installation ") })
            })
        #expect(ids.count == 1)
        let ledger = try PushLedger(configuration: KitFixtures.configuration(directory: directory))
        #expect(ids.first == "installation \(ledger.installationID.uuidString.lowercased())")
        #expect(ledger.pendingCount == 4)
    }

    @Test func aRecordedEventSurvivesTheProcess() throws {
        let directory = KitFixtures.directory()
        let run = try ProbeRun(["record", "--dir", directory.path, "--app", KitFixtures.app, "--count", "25"])
        run.wait()
        #expect(run.recorded.count == 25)
        #expect(try PushLedger(configuration: KitFixtures.configuration(directory: directory)).pendingCount == 25)
    }

    @Test func eventsTheServerWouldRejectAreRefusedAtRecord() throws {
        let ledger = try PushLedger(configuration: KitFixtures.configuration())
        #expect(
            throws: PushLedgerError.invalidEvent(
                code: "invalid_field",
                message: "invalid field \"placement\": expected a slug of 1 to 64 characters a-z, 0-9 or _")
        ) {
            try ledger.record(.permissionPrompt(placement: "After First Order", prompt: .system, result: .granted))
        }
        #expect(throws: PushLedgerError.self) { try ledger.record(.pushToken(provider: .apns, token: "not-hex")) }
        #expect(throws: PushLedgerError.self) {
            try ledger.record(.notificationOpened(notificationID: UUID(), action: String(repeating: "a", count: 300)))
        }
        #expect(ledger.pendingCount == 0)
        for event in KitFixtures.everyEventType() { try ledger.record(event) }
        #expect(ledger.pendingCount == 6)
    }

    @Test func aConfigurationTheContractRefusesFailsAtInit() {
        var configuration = KitFixtures.configuration()
        configuration.appID = ""
        #expect(throws: PushLedgerError.self) { try PushLedger(configuration: configuration) }
        configuration = KitFixtures.configuration()
        configuration.maxBatchEvents = 0
        #expect(throws: PushLedgerError.invalidConfiguration("batch and journal sizes must be positive")) {
            try PushLedger(configuration: configuration)
        }
    }

    @Test func theAPNsEnvironmentDefaultsToProduction() {
        let event = PushLedgerEvent.pushToken(provider: .apns, token: String(repeating: "0f", count: 32))
        #expect(
            event.payload
                == .pushToken(
                    PushTokenRegistration(
                        provider: .apns, token: String(repeating: "0f", count: 32), environment: .production)))
        #expect(
            PushLedgerEvent.pushToken(provider: .fcm, token: "abc", environment: .sandbox).payload
                == .pushToken(PushTokenRegistration(provider: .fcm, token: "abc", environment: nil)))
    }

    @Test func theDefaultPlatformIsIOS() {
        #expect(KitFixtures.configuration().platform == .ios)
        #expect(KitFixtures.configuration().maxJournalEvents >= 10_000)
        #expect(KitFixtures.configuration().maxJournalBytes >= 10 << 20)
    }
}

/// A child process (`pushledger-kit-probe` unless told otherwise); its stdout lines collected as they come.
final class ProbeRun: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var buffer = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ arguments: [String], executable: URL = KitFixtures.probe, environment: [String: String]? = nil) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        try process.run()
        let fd = pipe.fileHandleForReading.fileDescriptor
        Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                lock.withLock { buffer.append(contentsOf: chunk[0..<n]) }
            }
            done.signal()
        }.start()
    }

    /// Complete lines so far.
    var lines: [String] {
        let text = lock.withLock { String(decoding: buffer, as: UTF8.self) }
        let parts = text.components(separatedBy: "\n")
        return Array(parts.dropLast())
    }

    /// Event ids whose `record` returned in the probe.
    var recorded: [String] {
        lines.filter { $0.hasPrefix("recorded ") }.map { String($0.dropFirst("recorded ".count)) }
    }

    func kill() { Glibc.kill(process.processIdentifier, SIGKILL) }

    /// Waits for the process and for its last output.
    @discardableResult
    func wait() -> (exited: Bool, status: Int32) {
        let status = ChildExit.wait(process)
        done.wait()
        return status
    }
}
