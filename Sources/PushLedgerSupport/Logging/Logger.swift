import Foundation

/// Structured log lines (`ts=… level=… component=… msg="…" key=value`) on stderr.
/// Libraries take a `Logger` from the caller and never create their own sink.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var name: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    public let component: String
    public let minimumLevel: Level
    private let sink: @Sendable (String) -> Void

    /// `sink` receives each finished line (without newline); the default writes to stderr.
    public init(
        component: String, minimumLevel: Level = .info,
        sink: @escaping @Sendable (String) -> Void = Logger.standardError
    ) {
        self.component = component
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// The same sink and level under another component name.
    public func named(_ component: String) -> Logger {
        Logger(component: component, minimumLevel: minimumLevel, sink: sink)
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.debug, message, fields)
    }
    public func info(_ message: String, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.info, message, fields)
    }
    public func warning(_ message: String, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.warning, message, fields)
    }
    public func error(_ message: String, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.error, message, fields)
    }

    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, CustomStringConvertible>) {
        guard level >= minimumLevel else { return }
        var line =
            "ts=\(Self.timestamp()) level=\(level.name) component=\(Self.quote(component)) msg=\(Self.quote(message))"
        for (key, value) in fields { line += " \(key)=\(Self.quote(value.description))" }
        sink(line)
    }

    /// Writes one line to stderr in a single call so lines of concurrent threads don't interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// A value that is safe to log in place of a secret or token: its first few characters.
    public static func redact(_ secret: String, keep: Int = 6) -> String {
        secret.count <= keep ? String(repeating: "*", count: secret.count) : String(secret.prefix(keep)) + "…"
    }

    static func quote(_ value: String) -> String {
        let plain =
            !value.isEmpty
            && value.unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0 != "\"" && $0 != "=" && $0 != "\\" && $0.value != 0x7f
            }
        if plain { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func timestamp() -> String {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        var tmValue = tm()
        var seconds = t.tv_sec
        gmtime_r(&seconds, &tmValue)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tmValue.tm_year + 1900, tmValue.tm_mon + 1, tmValue.tm_mday,
            tmValue.tm_hour, tmValue.tm_min, tmValue.tm_sec, t.tv_nsec / 1_000_000)
    }
}
