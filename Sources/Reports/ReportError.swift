import Postgres

/// A report failure: `description` is safe to show users; `debugDescription` has the detail for logs.
public struct ReportError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: String, Sendable {
        /// Bad arguments (the CLI exits 64).
        case invalidQuery
        /// The format is not offered by this report.
        case unsupportedFormat
        /// The database failed or returned something unexpected.
        case database
    }

    public let kind: Kind
    public let description: String
    public let debugDescription: String
    /// The server's SQLSTATE when the database answered with an error.
    public let sqlState: String?

    init(kind: Kind, description: String, detail: String? = nil, sqlState: String? = nil) {
        self.kind = kind
        self.description = description
        self.debugDescription = detail.map { "\(description): \($0)" } ?? description
        self.sqlState = sqlState
    }

    /// A deadlock or serialization failure: the transaction was rolled back whole and the same
    /// work can simply run again.
    public var isTransient: Bool { ["40P01", "40001"].contains(sqlState ?? "") }

    public static func invalidQuery(_ message: String) -> ReportError { ReportError(kind: .invalidQuery, description: message) }

    static func unsupported(_ format: ReportFormat, report: String) -> ReportError {
        ReportError(kind: .unsupportedFormat, description: "\(report) has no \(format.rawValue) format")
    }

    static func database(_ error: any Error, while doing: String) -> ReportError {
        let detail = (error as? PostgresError)?.debugDescription ?? String(describing: error)
        return ReportError(kind: .database, description: "database error while \(doing)", detail: detail,
                           sqlState: (error as? PostgresError)?.sqlState)
    }
}

/// Runs a database step, turning any failure into a ``ReportError`` naming the step.
func databaseStep<T>(_ doing: String, _ body: () throws -> T) throws(ReportError) -> T {
    do {
        return try body()
    } catch let error as ReportError {
        throw error
    } catch {
        throw ReportError.database(error, while: doing)
    }
}
