import Foundation

/// Runs the built `pushledger` executable (it sits next to the test bundle) as a user would.
public enum CommandRunner {
    public struct Output: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    public static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var folder = bundle
        // The test runner may be the .xctest bundle itself or a file inside it.
        while !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("pushledger").path),
            folder.path != "/"
        {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("pushledger")
    }

    /// Runs `pushledger arguments…` (or another `program`, such as a script of `scripts/`) with
    /// `environment` added to a clean one (less the names in `without`), optionally feeding
    /// `input` on stdin, in `directory` when given, and waits for it.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], without: Set<String> = [], input: Data? = nil,
        program: URL? = nil, directory: URL? = nil
    ) throws -> Output {
        let process = Process()
        process.executableURL = program ?? executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        env["PUSHLEDGER_SQL_DIR"] = TestDatabase.repositoryRoot.appendingPathComponent("sql").path
        env.merge(environment) { $1 }
        for name in without { env[name] = nil }
        process.environment = env
        let out = Pipe(), err = Pipe(), inp = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inp
        try process.run()
        // Read both pipes while the process runs so a full pipe can't block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var stdoutData = Data(), stderrData = Data()
        let outFD = out.fileHandleForReading.fileDescriptor, errFD = err.fileHandleForReading.fileDescriptor
        DispatchQueue.global().async(group: group) { stdoutData = readAll(outFD) }
        DispatchQueue.global().async(group: group) { stderrData = readAll(errFD) }
        if let input { writeAll(inp.fileHandleForWriting.fileDescriptor, input) }
        try inp.fileHandleForWriting.close()
        group.wait()
        let ended = ChildExit.wait(process)
        return Output(
            status: ended.status, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// Foundation's FileHandle gives up on EINTR (child exits interrupt reads); retry instead.
    static func readAll(_ fd: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                data.append(contentsOf: buffer[0..<n])
                continue
            }
            if n < 0 && errno == EINTR { continue }
            return data
        }
    }

    static func writeAll(_ fd: Int32, _ data: Data) {
        var offset = 0
        let bytes = [UInt8](data)
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}
