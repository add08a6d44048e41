import Postgres
import PushLedgerSupport

/// Why an alert check could not do its job — each one is "trouble" (``ExitCode/unavailable``).
/// `description` is one safe line for users; `debugDescription` has the detail for logs.
public struct AlertError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The rules file is unreadable, not JSON, or has an unknown or invalid setting.
        case rulesFile = "rules_file"
        /// The database was unreachable or a query failed.
        case database
        /// A webhook delivery failed after its retries.
        case webhook
        /// A caller passed an unusable value (e.g. a webhook URL that isn't http://).
        case invalidArgument = "invalid_argument"
    }

    public var kind: Kind
    public var message: String
    public var detail: String?

    public init(_ kind: Kind, _ message: String, detail: String? = nil) {
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    /// Wraps a database failure, keeping the server's detail for logs only.
    public init(_ error: PostgresError) {
        self.init(.database, error.description, detail: error.debugDescription)
    }

    public var description: String { message }

    public var debugDescription: String {
        guard let detail else { return "\(kind.rawValue): \(message)" }
        return "\(kind.rawValue): \(message) (\(detail))"
    }
}

extension AlertError: ExitCoded {
    public var exitCode: ExitCode { .unavailable }
}

/// The process exit status of `pushledger alert check`, like diff(1): cron and CI act on it.
public enum AlertExitStatus: Int32, Sendable, Hashable {
    /// Nothing firing.
    case noneFiring = 0
    /// At least one alert firing.
    case firing = 1
    /// Trouble: bad rules file, database unreachable, webhook failed.
    case trouble = 2
}
