import Foundation
import LinkCheck
import LinkFetch
import TestSupport
import Testing

/// Each broken fixture domain gives its own verdict and the good one passes, over real HTTPS
/// from nginx with a CA of its own (scripts/link-fixture.sh).
@Suite(.serialized) struct FixtureVerdictTests {
    static let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")
    static let identities = AppIdentities(
        iosAppIDs: ["ABCDE12345.com.example.shop"],
        androidApps: [.init(packageName: "com.example.shop", fingerprints: [fingerprint])])
    static let links = ["https://x/orders/81", "https://x/orders/82?ref=push", "https://x/chat"].compactMap(
        TappedLink.init)

    /// The checked-in sites plus one whose Apple file is over Apple's 128 KB limit.
    static func sites() throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushledger-sites-\(UUID().uuidString)")
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sites")
        try FileManager.default.copyItem(at: source, to: copy)
        let large = copy.appendingPathComponent("large.test/.well-known")
        try FileManager.default.createDirectory(at: large, withIntermediateDirectories: true)
        let padding = String(repeating: " ", count: FetchedFile.appleSizeLimit)
        let body =
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"], "components": [{"/": "*"}]}]}"#
            + padding + "}"
        try Data(body.utf8).write(to: large.appendingPathComponent("apple-app-site-association"))
        return copy
    }

    func withFixture(_ body: (LinkFixture) throws -> Void) throws {
        let sites = try Self.sites()
        defer { try? FileManager.default.removeItem(at: sites) }
        let fixture = try LinkFixture(sites: sites)
        defer { fixture.stop() }
        try body(fixture)
    }

    func verdicts(_ domain: String, _ fixture: LinkFixture, cdn: Bool = false) throws -> [String: Verdict] {
        let fetcher = HTTPSFetcher(extraCAFile: fixture.caFile, connectTo: [fixture.connectTo])
        let checker = LinkChecker(fetcher: fetcher, appleCDNBase: "https://cdn.test/a/v1/")
        let results = try checker.check(
            domain: domain, identities: Self.identities, links: Self.links, appleCDN: cdn,
            trust: try fetcher.trustBundle())
        return Dictionary(
            results.map { ($0.check + ($0.subject.isEmpty ? "" : " " + $0.subject), $0.verdict) },
            uniquingKeysWith: { a, _ in a })
    }

    @Test func everyCaseHasItsVerdict() throws {
        try withFixture { fixture in
            let good = try verdicts("good.test", fixture, cdn: true)
            #expect(
                good == [
                    "apple file": .ok, "apple cdn": .cdnSame, "apple app ABCDE12345.com.example.shop": .named,
                    "apple path /orders/*": .covered, "apple path /chat": .covered,
                    "android file": .ok, "android app com.example.shop": .named,
                ])
            #expect(try verdicts("missing.test", fixture) == ["apple file": .missing, "android file": .missing])
            #expect(try verdicts("redirect.test", fixture) == ["apple file": .redirect, "android file": .redirect])
            #expect(
                try verdicts("wrongtype.test", fixture) == [
                    "apple file": .wrongContentType, "android file": .wrongContentType,
                ])
            #expect(try verdicts("badjson.test", fixture) == ["apple file": .badJSON, "android file": .badJSON])
            #expect(try verdicts("large.test", fixture)["apple file"] == .tooLarge)
            let notNamed = try verdicts("notnamed.test", fixture)
            #expect(notNamed["apple app ABCDE12345.com.example.shop"] == .notNamed)
            #expect(notNamed["android app com.example.shop"] == .notNamed)
            #expect(try verdicts("badfp.test", fixture)["android app com.example.shop"] == .fingerprintMalformed)
            #expect(try verdicts("otherfp.test", fixture)["android app com.example.shop"] == .fingerprintMismatch)
            let excluded = try verdicts("excluded.test", fixture)
            #expect(excluded["apple path /orders/*"] == .excluded)
            #expect(excluded["apple path /chat"] == .covered)
            let notCovered = try verdicts("notcovered.test", fixture)
            #expect(notCovered["apple path /orders/*"] == .notCovered)
            #expect(notCovered["apple path /chat"] == .covered)
            #expect(try verdicts("stale.test", fixture, cdn: true)["apple cdn"] == .cdnDiffers)
        }
    }

    @Test func theRedirectIsReportedNotFollowed() throws {
        try withFixture { fixture in
            let fetcher = HTTPSFetcher(extraCAFile: fixture.caFile, connectTo: [fixture.connectTo])
            let file = try fetcher.fetch(
                DomainCheck.appleURL("redirect.test"), limit: 1024, trust: try fetcher.trustBundle())
            #expect(file.status == 301)
            #expect(file.redirectLocation == "https://www.redirect.test/.well-known/apple-app-site-association")
        }
    }

    /// Without the fixture's CA the certificate is not trusted; a host the certificate does not
    /// name fails too (SNI and the name check use the URL's host, not the address connected to).
    @Test func certificatesAreChecked() throws {
        try withFixture { fixture in
            let untrusted = HTTPSFetcher(connectTo: [fixture.connectTo])
            let file = try untrusted.fetch(DomainCheck.appleURL("good.test"), limit: 1024, trust: nil)
            #expect(file.status == nil)
            #expect(file.servingProblem?.verdict == .unreachable)
            let trusted = HTTPSFetcher(extraCAFile: fixture.caFile, connectTo: [fixture.connectTo])
            let other = try trusted.fetch(
                DomainCheck.appleURL("unnamed.example"), limit: 1024, trust: try trusted.trustBundle())
            #expect(other.status == nil)
            let exact = HTTPSFetcher(
                extraCAFile: fixture.caFile, connectTo: ["good.test:443:127.0.0.1:\(fixture.port)"])
            #expect(
                try exact.fetch(DomainCheck.appleURL("good.test"), limit: 4096, trust: try exact.trustBundle()).status
                    == 200)
        }
    }

    @Test func aBadCAFileCannotRun() {
        #expect(throws: FetchSetupError.self) { try HTTPSFetcher(extraCAFile: "/nonexistent/ca.pem").trustBundle() }
        #expect(throws: FetchSetupError.self) { try HTTPSFetcher(extraCAFile: #filePath).trustBundle() }
    }
}
