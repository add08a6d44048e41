import Foundation
import Postgres
import PushLedgerContract
import TestSupport
import Testing

/// The engine reads receipts and opens from `pushledger_confirmation_lookback()` before a window:
/// long enough for the oldest confirmation the contract's age limits let through.
@Suite struct OutcomeLookBackTests {
    /// The oldest a send's confirmation can have occurred: its send may be stamped up to
    /// `maxFuture` ahead of its arrival, the confirmation up to `maxAge` before its own.
    static var limit: TimeInterval { IngestLimits().maxAge! + IngestLimits().maxFuture }

    @Test func theLookBackCoversTheContractsAgeLimits() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "look"))
        let seconds: Double = try connection.query(
            "select extract(epoch from pushledger_confirmation_lookback())::float8 as s")[0].decode("s")
        #expect(seconds >= Self.limit)
    }

    @Test func theOldestConfirmationsTheContractAcceptsStillConfirm() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "look"))
        let sentAt = Date(timeIntervalSince1970: 1_794_312_000)
        let confirmed = sentAt.addingTimeInterval(-Self.limit)
        let (installation, received, opened) = (UUID(), UUID(), UUID())
        for notification in [received, opened] {
            try connection.execute(
                """
                insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by, \
                channel,
                                   sent_at, status, received_at)
                values ('app', \(UUID()), \(notification), 'fcm', 'token', \(installation), 'explicit', 'orders',
                        \(sentAt), 200, \(sentAt))
                """)
        }
        try connection.execute(
            """
            insert into notification_receipts (app_id, event_id, installation_id, platform, notification_id, at, \
            occurred_at, received_at)
            values ('app', \(UUID()), \(installation), 'android', \(received), \(confirmed), \(confirmed), \(sentAt))
            """)
        try connection.execute(
            """
            insert into notification_opens (app_id, event_id, installation_id, platform, notification_id, action, \
            landed,
                                            at, occurred_at, received_at)
            values ('app', \(UUID()), \(installation), 'android', \(opened), 'default', 'target', \(confirmed), \
            \(confirmed), \(sentAt))
            """)
        let outcomes = try connection.query(
            """
            select notification_id, outcome from pushledger_classified_sends('app', \(sentAt), \
            \(sentAt.addingTimeInterval(3_600)),
                                                                             \(sentAt.addingTimeInterval(7 * 86_400)))
            """
        ).map { (try $0.decode("notification_id", as: UUID.self), try $0.decode("outcome", as: String.self)) }
        #expect(Dictionary(uniqueKeysWithValues: outcomes) == [received: "received", opened: "opened"])
        let landings: Int = try connection.query(
            """
            select sum(opens)::integer as n from pushledger_open_landings('app', \(sentAt), \
            \(sentAt.addingTimeInterval(3_600)),
                                                                            \(sentAt.addingTimeInterval(7 * 86_400)))
            """)[0].decode("n")
        #expect(landings == 1)
    }
}
