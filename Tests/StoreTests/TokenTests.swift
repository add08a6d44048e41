import Foundation
import Postgres
import Store
import Testing

@Suite struct TokenTests {
    typealias F = Fixture
    let db: StoreDatabase
    init() throws { db = try StoreDatabase() }

    private func resolution(_ event: Int) throws -> (UUID?, String) {
        let row = try db.connection.query(
            "select installation_id, resolved_by from sends where event_id = \(F.event(event))")[0]
        return (try row.decode("installation_id"), try row.decode("resolved_by"))
    }

    @Test func sendsResolveTheLatestRegistrationAtOrBeforeSentAt() throws {
        let one = F.envelope(installation: F.installation(1))
        let two = F.envelope(installation: F.installation(2))
        _ = try db.write(
            F.telemetry(one, [F.event(1, at: 1, F.token("shared"))]),
            F.telemetry(two, [F.event(2, at: 5, F.token("shared"))]))
        _ = try db.write(
            F.sends([
                F.send(10, notification: 1, at: 0.5, token: "shared"),  // before any registration
                F.send(11, notification: 2, at: 1, token: "shared"),  // at the registration time
                F.send(12, notification: 3, at: 4, token: "shared"),
                F.send(13, notification: 4, at: 6, token: "shared"),
                F.send(14, notification: 5, at: 6, token: "shared", installation: F.installation(9)),
                F.send(15, notification: 6, at: 6, token: "shared", provider: .apns),  // another provider's token
            ]))
        #expect(try resolution(10) == (nil, "unresolved"))
        #expect(try resolution(11) == (F.installation(1), "token"))
        #expect(try resolution(12) == (F.installation(1), "token"))
        #expect(try resolution(13) == (F.installation(2), "token"))
        #expect(try resolution(14) == (F.installation(9), "explicit"))
        #expect(try resolution(15) == (nil, "unresolved"))
    }

    @Test func aRegistrationInTheSameBatchCountsAndALateOneReResolves() throws {
        let env = F.envelope(installation: F.installation(1))
        _ = try db.write(F.sends([F.send(10, notification: 1, at: 3, token: "late")]))
        #expect(try resolution(10) == (nil, "unresolved"))
        _ = try db.write(
            F.telemetry(env, [F.event(1, at: 1, F.token("same")), F.event(2, at: 2, F.token("late"))]),
            F.sends([F.send(11, notification: 2, at: 2, token: "same")]))
        #expect(try resolution(11) == (F.installation(1), "token"))
        #expect(try resolution(10) == (F.installation(1), "token"))
    }

    @Test func invalidatingResultsMarkTheTokenUntilItIsRegisteredAgain() throws {
        let env = F.envelope(installation: F.installation(1))
        _ = try db.write(
            F.telemetry(
                env,
                [
                    F.event(1, at: 1, F.token("apns-410", provider: .apns)),
                    F.event(2, at: 1, F.token("apns-400", provider: .apns)),
                    F.event(3, at: 1, F.token("fcm-unreg")), F.event(4, at: 1, F.token("apns-other", provider: .apns)),
                ]))
        _ = try db.write(
            F.sends([
                F.send(
                    10, notification: 1, at: 2, token: "apns-410", provider: .apns, status: 410, reason: "ExpiredToken",
                    unregisteredAt: F.time(1.5)),
                F.send(
                    11, notification: 2, at: 2, token: "apns-400", provider: .apns, status: 400,
                    reason: "BadDeviceToken"),
                F.send(12, notification: 3, at: 2, token: "fcm-unreg", status: 404, reason: "UNREGISTERED"),
                F.send(
                    13, notification: 4, at: 2, token: "apns-other", provider: .apns, status: 400, reason: "BadTopic"),
                F.send(14, notification: 5, at: 2, token: "never-registered", status: 404, reason: "UNREGISTERED"),
            ]))
        let rows = try db.connection.query(
            """
            select token, is_valid, invalidated_at, invalidated_reason, unregistered_at, installation_id from \
            push_tokens order by token
            """
        )
        let state = try Dictionary(
            uniqueKeysWithValues: rows.map {
                (try $0.decode("token", as: String.self), try $0.decode("is_valid", as: Bool.self))
            })
        #expect(
            state == [
                "apns-400": false, "apns-410": false, "apns-other": true, "fcm-unreg": false, "never-registered": false,
            ])
        let apns410 = try rows.first { try $0.decode("token", as: String.self) == "apns-410" }!
        #expect(try apns410.decode("invalidated_at", as: Date?.self) == F.time(2))
        #expect(try apns410.decode("invalidated_reason", as: String?.self) == "ExpiredToken")
        #expect(try apns410.decode("unregistered_at", as: Date?.self) == F.time(1.5))

        // Registered again after the result: valid again.
        _ = try db.write(F.telemetry(env, [F.event(5, at: 3, F.token("apns-410", provider: .apns))]))
        #expect(try db.value("select is_valid from push_tokens where token = 'apns-410'", as: Bool.self))
    }
}
