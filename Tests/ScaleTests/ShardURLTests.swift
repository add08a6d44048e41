import Postgres
import Store
import Testing

/// Shard URLs as libpq reads them, host lists included (a Patroni cluster), and the foreign
/// server options the directory makes of them. No database.
@Suite("Shard URLs")
struct ShardURLTests {
    static let patroni =
        "postgres://pushledger:s%40cret@db1.internal:5432,db2.internal:5433,[::1]/pushledger"
        + "?target_session_attrs=read-write&connect_timeout=2"

    @Test func aHostListIsReadHostByHost() throws {
        let url = try #require(ConnectionURL(Self.patroni))
        #expect(url.user == "pushledger" && url.password == "s@cret" && url.database == "pushledger")
        #expect(
            url.endpoints == [
                .init(host: "db1.internal", port: "5432"), .init(host: "db2.internal", port: "5433"),
                .init(host: "::1"),
            ])
        #expect(url.parameters.map(\.name) == ["target_session_attrs", "connect_timeout"])
        #expect(url.parameters.map(\.value) == ["read-write", "2"])
        let single = try #require(ConnectionURL("postgresql://127.0.0.1:6543/db?sslmode=disable"))
        #expect(single.user == nil && single.endpoints == [.init(host: "127.0.0.1", port: "6543")])
        let socket = try #require(ConnectionURL("postgres:///pushledger?host=%2Fvar%2Frun%2Fpostgresql"))
        #expect(socket.endpoints.isEmpty && socket.parameters.first?.value == "/var/run/postgresql")
    }

    @Test func whatIsNoLibpqURIIsRefused() {
        for bad in [
            "host=db1 dbname=x", "mysql://db1/x", "postgres://db1:54x2/x", "postgres://u@db1/x?a=%zz",
            "postgres://[::1/x",
        ] {
            #expect(ConnectionURL(bad) == nil, "\(bad)")
            #expect(FleetReads.serverOptions(bad) == nil, "\(bad)")
        }
    }

    @Test func aHostListBecomesLibpqsHostAndPortLists() throws {
        let options = try #require(FleetReads.serverOptions(Self.patroni))
        #expect(
            options.server
                == """
                "host" 'db1.internal,db2.internal,::1', "port" '5432,5433,', "dbname" 'pushledger', \
                "target_session_attrs" 'read-write', "connect_timeout" '2'
                """)
        #expect(options.user == "\"user\" 'pushledger', \"password\" 's@cret'")
    }

    @Test func parametersOverrideTheURLAndLoginsGoToTheUserMapping() throws {
        let options = try #require(
            FleetReads.serverOptions(
                "postgres://a@h:1/d?host=other&user=b&sslpassword=x&client_encoding=UTF8&application_name=it's"))
        #expect(options.server == "\"port\" '1', \"dbname\" 'd', \"host\" 'other', \"application_name\" 'it''s'")
        #expect(options.user == "\"user\" 'b', \"sslpassword\" 'x'")
        let bare = try #require(FleetReads.serverOptions("postgres://"))
        #expect(bare.server == "\"dbname\" 'postgres'" && bare.user.hasPrefix("\"user\" '"))
    }

    @Test func listingsHideThePasswordOfEveryForm() {
        #expect(
            ConnectionURL.redacted(Self.patroni)
                == "postgres://pushledger:***@db1.internal:5432,db2.internal:5433,[::1]/pushledger"
                + "?target_session_attrs=read-write&connect_timeout=2")
        #expect(ConnectionURL.redacted("postgres://u@h/d") == "postgres://u@h/d")
        #expect(ConnectionURL.redacted("postgres://u:p@h:5x/d") == "(unreadable URL withheld)")
    }
}
