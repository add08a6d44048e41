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
        while !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("pushledger").path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("pushledger")
    }

    /// Runs `pushledger arguments…` with `environment` added to a clean one, optionally
    /// feeding `input` on stdin, and waits for it.
    public static func run(_ arguments: [String], environment: [String: String] = [:], input: Data? = nil) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        env["PUSHLEDGER_SQL_DIR"] = TestDatabase.repositoryRoot.appendingPathComponent("sql").path
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe(), inp = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inp
        try process.run()
        if let input { inp.fileHandleForWriting.write(input) }
        try inp.fileHandleForWriting.close()
        // Read both pipes while the process runs so a full pipe can't block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var stdoutData = Data(), stderrData = Data()
        DispatchQueue.global().async(group: group) { stdoutData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { stderrData = err.fileHandleForReading.readDataToEndOfFile() }
        group.wait()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }
}
