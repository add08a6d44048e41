import Foundation
import Postgres
import Store
import Testing

extension StoreDatabase {
    /// The partitions of `table`, by name.
    func partitions(_ table: String) throws -> [String] {
        try connection.query(
            """
            select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
             where i.inhparent = \(table)::regclass order by c.relname
            """
        ).map { try $0.decode("relname") }
    }
}

@Suite struct RetentionTests {
    typealias F = Fixture
    let db: StoreDatabase
    init() throws { db = try StoreDatabase() }

    private func partitions(_ table: String) throws -> [String] { try db.partitions(table) }

    @Test func theWriterCreatesTheMonthsItSeesAndMovesRowsOutOfTheDefault() throws {
        #expect(try partitions("sends") == ["sends_default"])
        // A row that landed in the default partition before its month existed ...
        try db.connection.execute(
            """
            insert into sends (app_id, event_id, notification_id, provider, token, resolved_by, channel, sent_at, \
            status, received_at)
            values ('x', gen_random_uuid(), gen_random_uuid(), 'fcm', 't', 'unresolved', 'c', '2026-09-15', 200, now())
            """)
        _ = try db.write(
            F.sends([F.send(1, notification: 1, at: 0), F.send(2, notification: 2, at: -24 * 60)]),
            F.telemetry(F.envelope(installation: F.installation(1)), [F.event(3, at: 0, F.received(1))]))
        #expect(try partitions("sends") == ["sends_default", "sends_p2026_09", "sends_p2026_10", "sends_p2026_11"])
        #expect(try partitions("notification_receipts").contains("notification_receipts_p2026_11"))
        // ... is moved into it.
        #expect(try db.count("sends_default") == 0)
        #expect(try db.count("sends_p2026_09") == 2)
        let created = try Retention.ensurePartitions(from: F.time(0), to: F.time(24 * 40), on: db.connection)
        #expect(
            created == [
                "sends_p2026_12", "settings_snapshots_p2026_12", "channel_states_p2026_12",
                "notification_receipts_p2026_12", "notification_opens_p2026_12",
            ])
        #expect(try Retention.ensurePartitions(from: F.time(0), to: F.time(24 * 40), on: db.connection).isEmpty)
    }

    @Test func retentionDropsWholeOldMonthsAndOldRows() throws {
        _ = try db.write(F.sends([F.send(1, notification: 1, at: 0), F.send(2, notification: 2, at: -24 * 60)]))
        _ = try db.write(
            .failedRequest(
                endpoint: .sends, appID: F.app, code: "invalid_body", message: "m", rawBody: "b",
                receivedAt: F.time(-24 * 70)))
        // 40 days before 2026-11-10: October's partitions stay (they end after the cutoff), September's go.
        let removed = try Retention(days: 40).apply(now: F.time(0), on: db.connection)
        let dropped = removed.filter { $0.kind == .partition }.map(\.object)
        #expect(
            dropped.sorted() == [
                "channel_states_p2026_09", "notification_opens_p2026_09", "notification_receipts_p2026_09",
                "sends_p2026_09", "settings_snapshots_p2026_09",
            ])
        #expect(removed.contains(Retention.Removal(object: "failed_events", kind: .rows, rowCount: 1)))
        #expect(try db.count("sends") == 1)
        #expect(try partitions("sends") == ["sends_default", "sends_p2026_10", "sends_p2026_11"])
        #expect(try db.count("failed_events") == 0)
        #expect(
            try Retention(days: 40).apply(now: F.time(0), on: db.connection).filter { $0.kind == .partition }.isEmpty)
    }
}

/// Daily partitions (`pushledger partitions --granularity daily`): created by the writer a day
/// at a time, dropped by retention a day at a time, and never overlapping the months created
/// before the switch.
@Suite struct DailyPartitionTests {
    typealias F = Fixture
    let db: StoreDatabase
    init() throws {
        db = try StoreDatabase()
        try PartitionGranularity.daily.store(on: db.connection)
    }

    private func partitions(_ table: String) throws -> [String] { try db.partitions(table) }

    @Test func theWriterCreatesTheDaysItSeesAndRetentionDropsWholeDays() throws {
        #expect(try PartitionGranularity.current(on: db.connection) == .daily)
        // A row the default partition caught before its day existed is moved into it.
        try db.connection.execute(
            """
            insert into sends (app_id, event_id, notification_id, provider, token, resolved_by, channel, sent_at, \
            status, received_at)
            values ('x', gen_random_uuid(), gen_random_uuid(), 'fcm', 't', 'unresolved', 'c', '2026-11-08 12:00Z', \
            200, now())
            """)
        _ = try db.write(F.sends([F.send(1, notification: 1, at: 0), F.send(2, notification: 2, at: -24)]))
        #expect(try partitions("sends") == ["sends_default", "sends_p2026_11_09", "sends_p2026_11_10"])
        #expect(try db.count("sends_default") == 1)
        #expect(
            try Retention.ensurePartitions(from: F.time(-48), to: F.time(-48), on: db.connection)
                == [
                    "sends_p2026_11_08", "settings_snapshots_p2026_11_08", "channel_states_p2026_11_08",
                    "notification_receipts_p2026_11_08", "notification_opens_p2026_11_08",
                ])
        #expect(try db.count("sends_default") == 0)
        #expect(try db.count("sends_p2026_11_08") == 1)
        // A cutoff inside 2026-11-09 drops the 8th only (the 9th still holds rows after the cutoff).
        let removed = try Retention(days: 1).apply(now: F.time(0).addingTimeInterval(-6 * 3600), on: db.connection)
        #expect(
            removed.filter { $0.kind == .partition }.map(\.object).sorted()
                == [
                    "channel_states_p2026_11_08", "notification_opens_p2026_11_08", "notification_receipts_p2026_11_08",
                    "sends_p2026_11_08", "settings_snapshots_p2026_11_08",
                ])
        #expect(try partitions("sends") == ["sends_default", "sends_p2026_11_09", "sends_p2026_11_10"])
        #expect(try db.count("sends") == 2)
    }

    @Test func switchingGranularityNeverOverlapsExistingPartitions() throws {
        try PartitionGranularity.monthly.store(on: db.connection)
        _ = try db.write(F.sends([F.send(1, notification: 1, at: 0)]))
        #expect(try partitions("sends") == ["sends_default", "sends_p2026_11"])
        // Daily from now on: November stays one month; December comes a day at a time (the
        // writer creates every day between a batch's first and last).
        try PartitionGranularity.daily.store(on: db.connection)
        _ = try db.write(F.sends([F.send(2, notification: 2, at: 24), F.send(3, notification: 3, at: 24 * 22)]))
        #expect(
            try partitions("sends") == ["sends_default", "sends_p2026_11", "sends_p2026_12_01", "sends_p2026_12_02"])
        // Back to monthly: the rest of December is filled with days, January is a month again.
        try PartitionGranularity.monthly.store(on: db.connection)
        let created = try Retention.ensurePartitions(from: F.time(24 * 22), to: F.time(24 * 60), on: db.connection)
            .filter { $0.hasPrefix("sends_") }
        #expect(created.count == 29 + 1)
        #expect(created.first == "sends_p2026_12_03" && created.last == "sends_p2027_01")
        #expect(try db.count("sends") == 3)
        #expect(try db.count("sends_default") == 0)
    }
}
