import Foundation
import Postgres
import Testing
import TestSupport
@testable import Reports

/// The rates of metrics.md are defined in SQL (`pushledger_rates`, read by the rates view, the
/// alerts and the dashboards) and read in Swift by `OutcomeCounts`: both give the same names,
/// numerators, denominators and low-volume flags.
@Suite("Rates: SQL and Swift")
struct RatesTests {
    static func counts(_ values: [Int]) -> OutcomeCounts {
        var c = OutcomeCounts()
        (c.sends, c.accepted, c.rejected, c.opened, c.received, c.blockedApp, c.blockedChannel, c.unconfirmed, c.tokenInvalid)
            = (values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8])
        return c
    }

    @Test func swiftReadsTheRatesSQLDefines() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "rates"))
        // sends, accepted, rejected, opened, received, blocked_app, blocked_channel, unconfirmed, token_invalid
        let cases = [
            [0, 0, 0, 0, 0, 0, 0, 0, 0], [29, 29, 0, 5, 9, 3, 2, 4, 0], [30, 30, 0, 5, 10, 3, 2, 4, 0],
            [100, 80, 12, 11, 18, 20, 7, 19, 6], [500, 450, 50, 0, 0, 450, 0, 0, 50],
        ]
        for values in cases {
            let c = Self.counts(values)
            let rows = try connection.query(
                """
                select rate, numerator, denominator, low_volume
                  from pushledger_rates(\(values[0]), \(values[1]), \(values[2]), \(values[3]), \(values[4]),
                                        \(values[5]), \(values[6]), \(values[7]), \(values[8]))
                """)
            let sql = try rows.map { row in
                "\(try row.decode("rate", as: String.self)) \(try row.decode("numerator", as: Int.self))/\(try row.decode("denominator", as: Int.self)) \(try row.decode("low_volume", as: Bool.self))"
            }
            let swift = c.namedRates.map { "\($0.name) \($0.rate.numerator)/\($0.rate.denominator) \($0.rate.isLowVolume)" }
            #expect(sql == swift, "\(values)")
        }
    }

    @Test func theRatesViewReadsTheSameRates() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "rates"))
        try connection.execute(
            """
            insert into send_rollups_daily (app_id, day, platform, channel, provider, sends, accepted, rejected, opened,
                received, pending, blocked_app, blocked_channel, unattributed, unconfirmed, token_invalid, to_invalid_token,
                as_of, refreshed_at)
            values ('app', '2026-11-10', 'android', 'orders', 'fcm', 100, 80, 12, 11, 18, 8, 20, 7, 5, 19, 6, 1, now(), now())
            """)
        let row = try connection.query("select * from send_rollup_rates_daily")[0]
        let c = Self.counts([100, 80, 12, 11, 18, 20, 7, 19, 6])
        #expect(try row.decode("silent_loss", as: Int.self) == c.silentLoss)
        #expect(try row.decode("confirmed", as: Int.self) == c.confirmedDeliveryRate.numerator)
        #expect(try row.decode("known_blocked", as: Int.self) == c.knownBlockedRate.numerator)
        for (name, rate) in c.namedRates {
            #expect(try row.decode(name, as: Double.self) == rate.value, "\(name)")
        }
        #expect(try row.decode("low_volume", as: Bool.self) == c.silentLossRate.isLowVolume)
    }
}
