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

    /// Erases `subject` of `app`; `dryRun` does the same work and rolls it back, so the counts
    /// are exactly what a real run would remove at that moment.
    public func erase(app: String, _ subject: Subject, dryRun: Bool, on connection: Connection) throws -> [Removed] {
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
                let removed = try connection.query("select * from pushledger_erase(\(app), \(installation), \(token))").map { row in
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
