import Postgres
import PushLedgerSupport

/// A report failure: `description` is safe to show users; `debugDescription` has the detail for logs.
public struct ReportError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: String, Sendable {
        /// Bad arguments (bad usage: ``ExitCode/usage``).
        case invalidQuery
        /// The format is not offered by this report.
        case unsupportedFormat
        /// The database failed or returned something unexpected.
        case database
    }

    public let kind: Kind
    public let description: String
    public let debugDescription: String
    /// The database failure behind a `.database` error, when it came from Postgres (callers
    /// tell a lost connection from a failed query by it).
    public let databaseError: PostgresError?

    package init(kind: Kind, description: String, detail: String? = nil, databaseError: PostgresError? = nil) {
        self.kind = kind
        self.description = description
        self.debugDescription = detail.map { "\(description): \($0)" } ?? description
        self.databaseError = databaseError
    }

    /// A deadlock or serialization failure: the transaction was rolled back whole and the same
    /// work can simply run again.
    public var isTransient: Bool { ["40P01", "40001"].contains(sqlState ?? "") }

    /// The server's SQLSTATE when the database answered with an error.
    public var sqlState: String? { databaseError?.sqlState }

    public static func invalidQuery(_ message: String) -> ReportError {
        ReportError(kind: .invalidQuery, description: message)
    }

    package static func database(_ error: any Error, while doing: String) -> ReportError {
        let postgres = error as? PostgresError
        let detail = postgres?.debugDescription ?? String(describing: error)
        return ReportError(
            kind: .database, description: "database error while \(doing)", detail: detail, databaseError: postgres)
    }
}

/// Runs a database step, turning any failure into a ``ReportError`` naming the step.
package func databaseStep<T>(_ doing: String, _ body: () throws -> T) throws(ReportError) -> T {
    do {
        return try body()
    } catch let error as ReportError {
        throw error
    } catch {
        throw ReportError.database(error, while: doing)
    }
}

extension ReportError: ExitCoded {
    /// Bad arguments are bad usage; a lost database connection is the database's status.
    public var exitCode: ExitCode {
        if kind == .invalidQuery { return .usage }
        return databaseError.map(ExitCode.init(reporting:)) ?? .failure
    }
}
