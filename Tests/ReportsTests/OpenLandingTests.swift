import Foundation
import Postgres
import Testing

@testable import Reports

@Suite("Tap-through landing")
struct OpenLandingTests {
    @Test func opensCountOnceOnTheDayOfTheNotificationsLatestAttempt() throws {
        var fixture = try Fixture()
        let install = Fixture.id(0x1a, 1)
        let (retried, plain, silent) = (Fixture.id(0x40, 1), Fixture.id(0x40, 2), Fixture.id(0x40, 3))
        try fixture.installation(install, platform: "android", firstSeen: Fixture.time(2026, 11, 1))
        // Retried across midnight: the 429 on the 9th, the accepted attempt on the 10th.
        try fixture.send(
            notification: retried, installation: install, at: Fixture.time(2026, 11, 9, 23, 59), status: 429)
        try fixture.send(notification: retried, installation: install, at: Fixture.time(2026, 11, 10, 0, 1))
        try fixture.open(
            retried, installation: install, at: Fixture.time(2026, 11, 10, 1), platform: "android", landed: "fallback")
        // No `landed`.
        try fixture.open(retried, installation: install, at: Fixture.time(2026, 11, 10, 2), platform: "android")
        try fixture.send(
            notification: plain, installation: install, at: Fixture.time(2026, 11, 10, 3), channel: "promotions",
            campaign: nil)
        try fixture.open(
            plain, installation: install, at: Fixture.time(2026, 11, 10, 4), platform: "android", landed: "target")
        // After as_of.
        try fixture.open(
            plain, installation: install, at: Fixture.time(2026, 11, 12), platform: "android", landed: "rejected")
        try fixture.send(notification: silent, installation: install, at: Fixture.time(2026, 11, 10, 5))
        let asOf = Fixture.time(2026, 11, 11)

        func landings(_ day: Int) throws -> [String] {
            try fixture.connection.query(
                """
                select channel, coalesce(campaign, '-') as campaign, opens, landed_reported, misrouted
                  from pushledger_open_landings(\(Fixture.app), \(Fixture.time(2026, 11, day)), \
                \(Fixture.time(2026, 11, day + 1)), \(asOf))
                """
            ).map { row in
                let (opens, landed, misrouted) = (
                    try row.decode("opens", as: Int.self), try row.decode("landed_reported", as: Int.self),
                    try row.decode("misrouted", as: Int.self)
                )
                return "\(try row.decode("channel", as: String.self)) \(try row.decode("campaign", as: String.self)) "
                    + "\(opens)/\(landed)/\(misrouted)"
            }
        }
        #expect(try landings(9).isEmpty)
        #expect(try landings(10) == ["orders order_update 2/1/1", "promotions - 1/1/0"])
    }
}
