import Postgres
import PushLedgerSupport

@testable import OutcomeEngine
@testable import Reports

extension WeeklyReport {
    /// What a deployment does: `pushledger rollup` (here as of now), then `report weekly`, which
    /// only reads.
    static func refreshed(connection: Connection, app: String, week: ISOWeek) throws -> WeeklyReport {
        _ = try ReportRollups.refresh(connection: connection)
        return try run(connection: connection, app: app, week: week)
    }
}
