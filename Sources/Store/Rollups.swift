import Foundation
import Postgres

/// The daily send rollups (sql/engine/rollups.sql): refreshed from the outcome engine for the
/// days whose inputs changed and the days that may still hold pending sends.
public struct Rollups: Sendable {
    /// One recomputed (app, UTC day); `day` is "YYYY-MM-DD".
    public struct RefreshedDay: Sendable, Equatable, Hashable {
        public var appID: String
        public var day: String
    }

    public init() {}

    /// Recomputes dirty and still-pending days as of `asOf`; safe while ingest runs, and
    /// concurrent refreshes take turns.
    @discardableResult
    public func refresh(asOf: Date = Date(), confirmationWindow: TimeInterval = 86_400, on connection: Connection) throws
        -> [RefreshedDay]
    {
        let window = "\(Int(confirmationWindow)) seconds"
        return try connection.transaction { connection in
            try connection.query(
                """
                select refreshed_app, refreshed_day::text as day
                  from pushledger_refresh_rollups(\(asOf), \(window)::interval)
                """
            ).map { RefreshedDay(appID: try $0.decode("refreshed_app"), day: try $0.decode("day")) }
        }
    }
}
