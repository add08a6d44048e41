import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway CA and the server certificate it signed for 127.0.0.1 and localhost
/// (`scripts/test-ca.sh`); every one has its own CA key and serial.
struct TestCA {
    let directory: URL
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    var certificate: String { directory.appendingPathComponent("server.pem").path }
    var key: String { directory.appendingPathComponent("server.key").path }

    init(_ name: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushledger-tls-\(name)-\(UUID().uuidString)")
        let script = TestDatabase.repositoryRoot.appendingPathComponent("scripts/test-ca.sh")
        let made = try CommandRunner.run(
            [directory.path, "PushLedger \(name) test CA", "IP:127.0.0.1", "DNS:localhost"], program: script)
        guard made.status == 0 else { throw RawHTTPError(description: "test-ca.sh: \(made.stderr)") }
    }

    /// The server certificate's serial, as `openssl x509 -serial` prints it.
    var serial: String {
        get throws { try TLSTools.serial(ofPEM: Data(contentsOf: URL(fileURLWithPath: certificate))) }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

enum TLSTools {
    /// Runs curl (`-sS`, no proxy from the environment): its exit status, stdout and stderr.
    static func curl(_ arguments: [String]) throws -> CommandRunner.Output {
        try CommandRunner.run(
            ["-sS", "--noproxy", "*", "--max-time", "30"] + arguments, program: URL(fileURLWithPath: "/usr/bin/curl"))
    }

    /// The HTTP status curl got for `url` (0 when there was no answer).
    static func status(_ url: String, _ arguments: [String] = []) throws -> Int {
        Int(try curl(["-o", "/dev/null", "-w", "%{http_code}"] + arguments + [url]).stdout) ?? 0
    }

    /// The serial of the certificate the server on `port` presents to a new connection.
    static func presentedSerial(port: UInt16) throws -> String {
        let shown = try CommandRunner.run(
            ["s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost"], input: Data(),
            program: URL(fileURLWithPath: "/usr/bin/openssl"))
        return try serial(ofPEM: Data(shown.stdout.utf8))
    }

    static func serial(ofPEM pem: Data) throws -> String {
        let printed = try CommandRunner.run(
            ["x509", "-noout", "-serial"], input: pem, program: URL(fileURLWithPath: "/usr/bin/openssl"))
        guard printed.status == 0 else { throw RawHTTPError(description: "no certificate: \(printed.stderr)") }
        return printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `pushledger serve extra…` expected to refuse to start: its exit status and stderr. A
    /// server that starts anyway is killed after a while and reported as status -1.
    static func refusedServe(
        _ arguments: [String], databaseURL: String
    ) throws -> (status: Int32, stderr: String, portBound: Bool) {
        let port = try ServeProcess.freePort() ?? { throw RawHTTPError(description: "no free port") }()
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = ["serve", "--listen", "127.0.0.1:\(port)"] + arguments
        process.environment = ["PATH": "/usr/bin:/bin", "DATABASE_URL": databaseURL]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let bound = ServeProcess.waitForListener(port: port, while: { ChildExit.poll(process) == nil })
        if ChildExit.poll(process) == nil { kill(process.processIdentifier, SIGKILL) }
        let ended = ChildExit.wait(process)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (ended.exited ? ended.status : -1, text, bound)
    }
}

/// A request over TLS that the test writes piece by piece (`openssl s_client` as a child
/// process): a slow upload held open across a certificate reload.
final class SlowTLSUpload {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    /// Connects to 127.0.0.1:`port`, trusting only `caFile`; fails the handshake on a
    /// certificate that CA did not sign.
    init(port: UInt16, caFile: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "s_client", "-quiet", "-connect", "127.0.0.1:\(port)", "-servername", "localhost", "-CAfile", caFile,
            "-verify_return_error", "-verify_hostname", "localhost",
        ]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func write(_ bytes: [UInt8]) { input.fileHandleForWriting.write(Data(bytes)) }

    /// Everything the server sent until it closed the connection.
    func finish() -> String {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        try? input.fileHandleForWriting.close()
        ChildExit.wait(process)
        return String(decoding: data, as: UTF8.self)
    }
}
