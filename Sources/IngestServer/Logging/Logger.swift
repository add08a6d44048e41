import Foundation
import Synchronization

/// Structured `key=value` log lines (logfmt), one per event, on stderr by default.
///
/// Values with spaces, quotes or `=` are quoted. Callers never pass secrets: keys are logged
/// only by their hash prefix (`KeyRecord.logID`).
public struct Logger: Sendable {
    /// Severity, in increasing order.
    public enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warn"
            case .error: "error"
            }
        }
    }

    private let sink: @Sendable (String) -> Void
    public var minimumLevel: Level
    private var context: [(String, String)]

    /// A logger that writes lines to `sink` (default: stderr).
    public init(minimumLevel: Level = .info, sink: @escaping @Sendable (String) -> Void = Logger.standardError) {
        self.sink = sink
        self.minimumLevel = minimumLevel
        self.context = []
    }

    /// A logger that adds `fields` to every line.
    public func with(_ fields: KeyValuePairs<String, String>) -> Logger {
        var copy = self
        copy.context += fields.map { ($0.key, $0.value) }
        return copy
    }

    /// Writes one line: `level=… msg=… key=value …`.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard level >= minimumLevel else { return }
        var parts = ["ts=\(Logger.timestamp())", "level=\(level)", "msg=\(Logger.quote(message))"]
        for (key, value) in context { parts.append("\(key)=\(Logger.quote(value))") }
        for (key, value) in fields { parts.append("\(key)=\(Logger.quote(value))") }
        sink(parts.joined(separator: " "))
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { log(.error, message, fields) }

    /// Writes a line to stderr in one `write` call, so lines of concurrent threads don't interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// A logger that drops everything (tests that don't look at logs).
    public static var silent: Logger { Logger(minimumLevel: .error, sink: { _ in }) }

    static func quote(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || $0.isNewline }
        guard needsQuotes else { return value }
        var out = "\""
        for character in value {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.append(character)
            }
        }
        return out + "\""
    }

    private static func timestamp() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
