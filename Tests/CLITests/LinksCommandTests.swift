import Foundation
import Postgres
import TestSupport
import Testing

/// `apps set/show` and `links check` end to end: real Postgres, real opens, the nginx fixture.
@Suite(.serialized) struct LinksCommandTests {
    static let ios = "ABCDE12345.com.example.shop"
    static let fingerprint = (0..<32).map { String(format: "%02x", $0 * 7 % 256) }.joined()
    let url: String
    var env: [String: String] { ["DATABASE_URL": url, "PUSHLEDGER_APP": "com.example.shop"] }

    init() throws { url = try TestDatabase.fresh(prefix: "links") }

    func addOpens(_ links: [(String, String?)], daysAgo: Int = 2) throws {
        let connection = try Connection.connect(url: url)
        for (link, landed) in links {
            try connection.execute(
                """
                insert into notification_opens (app_id, event_id, installation_id, platform, notification_id, action, \
                link, landed, at, occurred_at, received_at)
                values ('com.example.shop', gen_random_uuid(), gen_random_uuid(), 'ios', gen_random_uuid(), 'default', \
                \(link), \(landed),
                        now() - \(daysAgo) * interval '1 day', now() - \(daysAgo) * interval '1 day', now())
                """)
        }
    }

    func setIdentities(extraIOS: [String] = []) throws {
        let set = try CommandRunner.run(
            ["apps", "set", "--ios-app-id", Self.ios] + extraIOS.flatMap { ["--ios-app-id", $0] } + [
                "--android-package", "com.example.shop", "--android-cert-sha256", Self.fingerprint,
            ], environment: env)
        #expect(set.status == 0, "\(set.stderr)")
    }

    @Test func appsSetValidatesAndShowLists() throws {
        try setIdentities(extraIOS: ["ABCDE12345.com.example.shop.debug"])
        let show = try CommandRunner.run(["apps", "show", "--format", "json"], environment: env)
        #expect(show.status == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 3)
        #expect(
            rows.contains {
                $0["cert_sha256"] as? String
                    == "00:07:0E:15:1C:23:2A:31:38:3F:46:4D:54:5B:62:69:70:77:7E:85:8C:93:9A:A1:A8:AF:B6:BD:C4:CB:D2:D9"
            })
        for bad in [
            ["--ios-app-id", "com.example.shop"],
            ["--android-package", "shop", "--android-cert-sha256", Self.fingerprint],
            ["--android-package", "com.example.shop", "--android-cert-sha256", "AB:CD"],
            ["--android-package", "com.example.shop"], [],
        ] {
            let r = try CommandRunner.run(["apps", "set"] + bad, environment: env)
            #expect(r.status == 64, "\(bad): \(r.stderr)")
        }
        // Nothing was lost to the refused calls.
        let again = try CommandRunner.run(["apps", "show", "--format", "json"], environment: env)
        #expect(again.stdout == show.stdout)
    }

    @Test func checksTheHostsOfRealOpensAndStoresTheVerdicts() throws {
        try setIdentities()
        try addOpens([
            ("https://good.test/orders/1", "target"), ("https://good.test/chat", "target"),
            ("https://notcovered.test/orders/7", "fallback"), ("https://notcovered.test/orders/8", "target"),
            ("myapp://orders/1", "fallback"),
        ])
        try addOpens([("https://old.test/orders/1", "fallback")], daysAgo: 40)
        let sites = TestDatabase.repositoryRoot.appendingPathComponent("Tests/LinkFetchTests/Sites")
        let fixture = try LinkFixture(sites: sites)
        defer { fixture.stop() }
        let args = ["links", "check", "--ca-file", fixture.caFile, "--connect-to", fixture.connectTo]
        let checked = try CommandRunner.run(args + ["--format", "json", "--log-level", "warning"], environment: env)
        #expect(checked.status == 1, "\(checked.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any])
        let domains = try #require(root["domains"] as? [[String: Any]])
        #expect(Set(domains.compactMap { $0["domain"] as? String }) == ["good.test", "notcovered.test"])
        let notCovered = try #require(domains.first { $0["domain"] as? String == "notcovered.test" })
        #expect(notCovered["misrouted_open_rate"] as? Double == 0.5)
        let checks = try #require(notCovered["checks"] as? [[String: Any]])
        #expect(
            checks.contains { $0["subject"] as? String == "/orders/*" && $0["verdict"] as? String == "not_covered" })
        #expect(domains.first { $0["domain"] as? String == "good.test" }?["passed"] as? Bool == true)

        let good = try CommandRunner.run(args + ["--domain", "good.test"], environment: env)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.split(separator: "\n").allSatisfy { $0.count <= 120 })
        #expect(good.stdout.contains("covered"))

        let connection = try Connection.connect(url: url)
        let stored = try connection.query(
            """
            select count(distinct checked_at) as runs, count(*) filter (where not passed) as failed from \
            link_check_results
            """
        )
        #expect(try stored[0].decode("runs") as Int == 2)
        #expect(try stored[0].decode("failed") as Int >= 1)
        let latest = try connection.query(
            """
            select verdict from pushledger_link_host_landings('com.example.shop', now() - interval '7 days', \
            now()) where host = 'notcovered.test'
            """
        )
        #expect((try latest.first?.decode("verdict") as String?)?.contains("apple path /orders/*: not_covered") == true)
    }

    @Test func couldNotRunExitsTwo() throws {
        let none = try CommandRunner.run(["links", "check", "--domain", "good.test"], environment: env)
        #expect(none.status == 2)
        #expect(none.stderr.contains("apps set"))
        try setIdentities()
        let noHosts = try CommandRunner.run(["links", "check"], environment: env)
        #expect(noHosts.status == 2)
        let badCA = try CommandRunner.run(
            ["links", "check", "--domain", "good.test", "--ca-file", "/nonexistent.pem"], environment: env)
        #expect(badCA.status == 2)
        let noDatabase = try CommandRunner.run(
            ["links", "check", "--domain", "good.test"],
            environment: ["DATABASE_URL": "postgresql://127.0.0.1:1/x", "PUSHLEDGER_APP": "a"])
        #expect(noDatabase.status == 2)
        for help in [["links", "check", "--help"], ["apps", "set", "--help"], ["apps", "show", "--help"]] {
            #expect(try CommandRunner.run(help).status == 0)
        }
    }
}
