import Foundation

/// `pg_dump` of PostgreSQL 15, the server the tests start.
public enum PostgresDump {
    /// The dump of the database at `url` with `arguments` (e.g. `--data-only`), without the
    /// per-run `\\restrict` key lines; throws when pg_dump fails.
    public static func run(_ arguments: [String], url: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/lib/postgresql/15/bin/pg_dump")
        process.arguments = arguments + ["--dbname=\(url)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailed(description: "pg_dump exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("\\restrict") && !$0.hasPrefix("\\unrestrict") }.joined(separator: "\n")
    }

    public struct CommandFailed: Error, CustomStringConvertible { public var description: String }
}
