import Foundation
import Postgres
import PushLedgerRules
import TestSupport
import Testing

@testable import Reports

/// The rates of metrics.md are defined in SQL (`pushledger_rates`, read by the reports, the rates
/// view, the alerts and the dashboards) and once in Swift (`OutcomeRates`, for callers without a
/// database): both give the same names, numerators, denominators and low-volume flags.
@Suite("Rates: SQL and Swift")
struct RatesTests {
    /// sends, accepted, rejected, opened, received, blocked_app, blocked_channel, unconfirmed, token_invalid,
    /// unconfirmable
    static let cases = [
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [29, 29, 0, 5, 9, 3, 2, 4, 0, 0], [30, 30, 0, 5, 10, 3, 2, 4, 0, 0],
        [100, 80, 12, 11, 18, 20, 7, 19, 6, 0], [500, 450, 50, 0, 0, 450, 0, 0, 50, 0],
        // Unconfirmable sends leave three denominators: 35 accepted, 6 of them could not confirm.
        [40, 35, 5, 4, 10, 2, 1, 12, 0, 6], [10, 10, 0, 0, 0, 0, 0, 0, 0, 10],
    ]

    static func counts(_ values: [Int]) -> OutcomeCounts {
        var c = OutcomeCounts()
        (
            c.sends, c.accepted, c.rejected, c.opened, c.received, c.blockedApp, c.blockedChannel, c.unconfirmed,
            c.tokenInvalid, c.unconfirmable
        ) = (
            values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8],
            values[9]
        )
        return c.withRatesOfCounts()
    }

    static func arguments(_ values: [Int]) -> String { values.map(String.init).joined(separator: ", ") }

    @Test func swiftDefinesTheRatesSQLDefines() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "rates"))
        for values in Self.cases {
            let rows = try connection.query(
                """
                select rate, numerator, denominator, low_volume from \
                pushledger_rates(\(unsafeRaw: Self.arguments(values)))
                """
            )
            let sql = try rows.map { row in
                """
                \(try row.decode("rate", as: String.self)) \
                \(try row.decode("numerator", as: Int.self))/\(try row.decode("denominator", as: Int.self)) \
                \(try row.decode("low_volume", as: Bool.self))
                """
            }
            let swift = Self.counts(values).namedRates.map {
                "\($0.name) \($0.rate.numerator)/\($0.rate.denominator) \($0.rate.isLowVolume)"
            }
            #expect(sql == swift, "\(values)")
        }
    }

    /// What the reports read: a count row with `pushledger_rate_columns` beside it.
    @Test func reportsReadTheRatesOfSQL() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "rates"))
        for values in Self.cases {
            let counts: SQL = """
                select * from (values (\(unsafeRaw: Self.arguments(values)), 0, 0, 0))
                    c(sends, accepted, rejected, opened, received, blocked_app, blocked_channel, unconfirmed, \
                token_invalid, unconfirmable,
                      pending, unattributed, to_invalid_token)
                """
            let read = try OutcomeCounts(row: try connection.query(OutcomeCounts.withRates(counts))[0])
            #expect(read == Self.counts(values), "\(values)")
            #expect(read.rates == Self.counts(values).rates, "\(values)")
        }
    }

    @Test func theRatesViewReadsTheSameRates() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "rates"))
        try connection.execute(
            """
            insert into send_rollups_daily (app_id, day, platform, channel, provider, sends, accepted, rejected, opened,
                received, pending, blocked_app, blocked_channel, unattributed, unconfirmed, token_invalid, \
            to_invalid_token,
                as_of, refreshed_at, unconfirmable)
            values ('app', '2026-11-10', 'android', 'orders', 'fcm', 100, 80, 12, 11, 18, 8, 20, 7, 5, 19, 6, 1, \
            now(), now(), 9)
            """)
        let row = try connection.query("select * from send_rollup_rates_daily")[0]
        let c = Self.counts([100, 80, 12, 11, 18, 20, 7, 19, 6, 9])
        #expect(try row.decode("silent_loss", as: Int.self) == c.silentLossRate.numerator)
        #expect(try row.decode("confirmed", as: Int.self) == c.confirmedDeliveryRate.numerator)
        #expect(try row.decode("known_blocked", as: Int.self) == c.knownBlockedRate.numerator)
        #expect(try row.decode("could_confirm", as: Int.self) == c.silentLossRate.denominator)
        for (name, rate) in c.namedRates {
            #expect(try row.decode(name, as: Double.self) == rate.value, "\(name)")
        }
        #expect(try row.decode("low_volume", as: Bool.self) == c.silentLossRate.isLowVolume)
    }
}
