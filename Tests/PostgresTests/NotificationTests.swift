import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct NotificationTests {
    let url: String

    init() throws {
        url = try TestDatabase.empty(prefix: "pgn")
    }

    @Test func aNotifyCommittedElsewhereArrivesAndAnotherChannelDoesNot() throws {
        let listener = try Connection.connect(url: url)
        try listener.listen("pushledger_test")
        #expect(try listener.waitForNotifications(timeout: .milliseconds(20)).isEmpty)
        let other = try Connection.connect(url: url)
        try other.execute("select pg_notify('somewhere_else', '')")
        #expect(try listener.waitForNotifications(timeout: .milliseconds(50)).isEmpty)
        // Delivered at commit, and equal ones of one transaction once.
        try other.transaction { connection in
            try connection.execute("select pg_notify('pushledger_test', '')")
            try connection.execute("select pg_notify('pushledger_test', '')")
            #expect(try listener.waitForNotifications(timeout: .milliseconds(50)).isEmpty)
        }
        var heard: [String] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while heard.isEmpty, ContinuousClock.now < deadline {
            heard = try listener.waitForNotifications(timeout: .milliseconds(200))
        }
        #expect(heard == ["pushledger_test"])
        #expect(try listener.waitForNotifications(timeout: .milliseconds(20)).isEmpty)
    }

    @Test func aChannelIsAPlainIdentifier() throws {
        let connection = try Connection.connect(url: url)
        for bad in ["", "a b", "x; drop table t", "\"quoted\""] {
            #expect(throws: PostgresError.self) { try connection.listen(bad) }
        }
    }

    @Test func aLostSessionThrowsSoTheListenerReconnects() throws {
        let listener = try Connection.connect(url: url)
        try listener.listen("pushledger_test")
        let admin = try Connection.connect(url: url)
        try admin.execute("select pg_terminate_backend(\(listener.backendPID)::int4)")
        var thrown: PostgresError?
        let deadline = ContinuousClock.now + .seconds(10)
        while thrown == nil, ContinuousClock.now < deadline {
            do {
                _ = try listener.waitForNotifications(timeout: .milliseconds(200))
            } catch {
                thrown = error
            }
        }
        #expect(thrown?.isConnectionProblem == true)
    }
}
