import Foundation
import Postgres

/// Erasure on request (sql/privacy/erase.sql): every stored trace of one installation or one
/// push token, in one transaction that holds ingest back for its length, recorded by a
/// SHA-256 of the id only. Idempotent: a second run finds nothing and changes no data.
public struct Erasure: Sendable {
    /// Whose traces go.
    public enum Subject: Sendable, Equatable {
        /// The installation and every token it registered.
        case installation(UUID)
        /// One push token: its registrations, state, sends and their receipts and opens.
        case token(String)
    }

    /// Rows removed (or, in a dry run, that would be) from one table.
    public struct Removed: Sendable, Equatable {
        public var table: String
        public var rows: Int
    }

    public init() {}

    /// Shortest id or token the raw-text search takes (sql/privacy/erase.sql).
    public static let minimumSearchLength = 16

    /// Erases `subject` of `app`; `dryRun` does the same work and rolls it back, so the counts
    /// are exactly what a real run would remove at that moment. Failed events go by the
    /// installation and token they were stored with; `searchRawText` also removes the app's
    /// failed events whose raw text contains the id or a token (at least
    /// `minimumSearchLength` characters): rows stored before those columns existed.
    public func erase(
        app: String, _ subject: Subject, dryRun: Bool, searchRawText: Bool = false, on connection: Connection
    ) throws -> [Removed] {
        var installation: UUID?
        var token: String?
        switch subject {
        case .installation(let id): installation = id
        case .token(let text): token = text
        }
        // A dry run leaves the transaction by this error, which rolls it back.
        struct RolledBack: Error { var removed: [Removed] }
        do {
            return try connection.transaction { connection in
                let removed = try connection.query(
                    "select * from pushledger_erase(\(app), \(installation), \(token), \(searchRawText))"
                ).map { row in
                    Removed(table: try row.decode("erased_from"), rows: try row.decode("erased_rows"))
                }
                if dryRun { throw RolledBack(removed: removed) }
                return removed
            }
        } catch let rolledBack as RolledBack {
            return rolledBack.removed
        }
    }
}
