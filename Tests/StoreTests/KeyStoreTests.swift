import Foundation
import Postgres
import Store
import Testing

@Suite struct KeyStoreTests {
    let db: StoreDatabase
    init() throws { db = try StoreDatabase() }

    @Test func secretsHaveTheScopeLetterAndFortyThreeURLSafeCharacters() {
        var generator = SystemRandomNumberGenerator()
        let telemetry = KeyStore.makeSecret(scope: .telemetry, using: &generator)
        let sends = KeyStore.makeSecret(scope: .sends, using: &generator)
        #expect(telemetry.hasPrefix("pl_t") && sends.hasPrefix("pl_s"))
        #expect(telemetry.count == 47)
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        #expect(telemetry.dropFirst(4).allSatisfy(allowed.contains))
        #expect(telemetry != KeyStore.makeSecret(scope: .telemetry, using: &generator))
    }

    @Test func createStoresOnlyTheHashAndActiveKeysCarryIt() throws {
        let store = KeyStore()
        let (id, secret) = try store.create(app: "com.example.shop", scope: .sends, on: db.connection)
        #expect(try db.count("api_keys", "key_prefix = '\(secret.prefix(12))'") == 1)
        // The secret itself is nowhere in the table.
        #expect(try db.count("api_keys", "row(api_keys.*)::text like '%\(secret.dropFirst(12))%'") == 0)
        let active = try store.loadActiveKeys(on: db.connection)
        #expect(active.count == 1)
        #expect(active[0].id == id && active[0].appID == "com.example.shop" && active[0].scope == .sends)
        let expected: [UInt8] = try db.value("select sha256(convert_to(\(secret), 'UTF8'))")
        #expect(active[0].hash == expected && expected.count == 32)
    }

    @Test func listShowsKeysWithoutSecretsAndRevokeRemovesThemFromActive() throws {
        let store = KeyStore()
        let (first, _) = try store.create(app: "a", scope: .telemetry, on: db.connection)
        let (second, _) = try store.create(app: "b", scope: .sends, on: db.connection)
        #expect(Set(try store.list(on: db.connection).map(\.id)) == [first, second])
        #expect(try store.list(app: "a", on: db.connection).map(\.id) == [first])
        #expect(try store.revoke(id: first, on: db.connection))
        #expect(try !store.revoke(id: first, on: db.connection))
        #expect(try !store.revoke(id: UUID(), on: db.connection))
        #expect(try store.loadActiveKeys(on: db.connection).map(\.id) == [second])
        let listed = try store.list(app: "a", on: db.connection)[0]
        #expect(listed.revokedAt != nil && listed.scope == .telemetry && listed.prefix.hasPrefix("pl_t"))
    }

    @Test func anEmptyAppIsRefused() {
        #expect(throws: KeyStoreError.self) { try KeyStore().create(app: "", scope: .sends, on: db.connection) }
    }

    @Test func aLifetimeSetsTheExpiryAndRotationOverlapsTwoKeys() throws {
        let store = KeyStore()
        let (old, _) = try store.create(app: "a", scope: .sends, lifetime: .days(90), on: db.connection)
        let (forever, _) = try store.create(app: "a", scope: .telemetry, on: db.connection)
        let listed = Dictionary(uniqueKeysWithValues: try store.list(on: db.connection).map { ($0.id, $0) })
        let created = try #require(listed[old]?.createdAt)
        let expiry = try #require(listed[old]?.expiresAt)
        #expect(abs(expiry.timeIntervalSince(created) - 90 * 86_400) < 5)
        #expect(listed[forever]?.expiresAt == nil)

        let rotated = try #require(
            try store.rotate(id: old, overlap: .hours(1), lifetime: .days(30), on: db.connection))
        let after = Dictionary(uniqueKeysWithValues: try store.list(on: db.connection).map { ($0.id, $0) })
        let overlapEnd = try #require(after[old]?.expiresAt)
        #expect(abs(overlapEnd.timeIntervalSinceNow - 3_600) < 60)
        #expect(after[rotated.id]?.appID == "a" && after[rotated.id]?.scope == .sends)
        #expect(abs((after[rotated.id]?.expiresAt ?? .distantPast).timeIntervalSinceNow - 30 * 86_400) < 60)
        // Both are loaded for the overlap: two valid keys for one app and scope.
        #expect(Set(try store.loadActiveKeys(on: db.connection).map(\.id)) == [old, rotated.id, forever])
        // An overlap never lengthens a key's life; a revoked or unknown key does not rotate.
        _ = try store.rotate(id: old, overlap: .days(400), on: db.connection)
        #expect(try store.list(on: db.connection).first { $0.id == old }?.expiresAt == overlapEnd)
        try store.revoke(id: forever, on: db.connection)
        #expect(try store.rotate(id: forever, overlap: .hours(1), on: db.connection) == nil)
        #expect(try store.rotate(id: UUID(), overlap: .hours(1), on: db.connection) == nil)
    }

    @Test func rotationKeepsTheRateLimit() throws {
        let store = KeyStore()
        let limit = try #require(KeyRateLimit(eventsPerSecond: 12.5, burst: 40))
        let (old, _) = try store.create(app: "a", scope: .telemetry, rateLimit: limit, on: db.connection)
        let (free, _) = try store.create(app: "a", scope: .sends, on: db.connection)
        let rotated = try #require(try store.rotate(id: old, overlap: .hours(1), on: db.connection))
        let rotatedFree = try #require(try store.rotate(id: free, overlap: .hours(1), on: db.connection))
        let loaded = Dictionary(uniqueKeysWithValues: try store.loadActiveKeys(on: db.connection).map { ($0.id, $0) })
        #expect(loaded[rotated.id]?.rateLimit == limit)
        #expect(loaded[rotatedFree.id]?.rateLimit == nil)
    }

    @Test func recordedUseNeverMovesBack() throws {
        let store = KeyStore()
        let (id, _) = try store.create(app: "a", scope: .sends, on: db.connection)
        let later = Date(timeIntervalSince1970: 1_800_000_000)
        try store.recordUse([(id, later)], on: db.connection)
        try store.recordUse([(id, later.addingTimeInterval(-60)), (UUID(), later)], on: db.connection)
        #expect(try store.list(on: db.connection)[0].lastUsedAt == later)
    }
}
