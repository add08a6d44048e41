import Foundation
import TestSupport
import Testing

@testable import IngestServer

/// How database failures reach the server: connection problems (503) apart from errors (500).
@Suite("Postgres ingest store")
struct PostgresIngestStoreTests {
    @Test func unreachableDatabaseIsAConnectionProblem() throws {
        let proxy = try TCPProxy(targetPort: UInt16(URLComponents(string: TestDatabase.adminURL)!.port!))
        proxy.cut()
        let store = PostgresIngestStore(url: proxy.url(for: try TestDatabase.adminURL), connections: 1)
        #expect(throws: StoreError.self) { try store.ping() }
        do {
            _ = try store.loadKeys()
            Issue.record("loadKeys should fail")
        } catch {
            #expect(error.isConnectionProblem)
        }
    }

    @Test func schemaErrorsAreNotConnectionProblemsAndKeepTheirSQLSTATE() throws {
        let store = PostgresIngestStore(url: try TestDatabase.empty(prefix: "srv"), connections: 1)
        try store.ping()
        do {
            _ = try store.loadKeys()
            Issue.record("loadKeys should fail without the api_keys table")
        } catch {
            #expect(!error.isConnectionProblem)
            #expect(error.sqlState == "42P01")  // undefined_table
        }
    }

    @Test func writesAndReadsKeysOnAMigratedDatabase() throws {
        let harness = try Harness()
        let store = PostgresIngestStore(url: harness.databaseURL, connections: 1)
        let keys = try store.loadKeys()
        #expect(Set(keys.map(\.appID)) == [Fixtures.app, Fixtures.otherApp])
        #expect(keys.count == 3)  // the revoked one is not loaded
        #expect(keys.allSatisfy { !$0.revoked && $0.hash.count == 32 })
    }
}
