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
}
