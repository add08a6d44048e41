import Testing

@testable import LinkCheck

/// File shape, identity and serving rules, each failure with its own verdict.
@Suite struct FileRulesTests {
    static let ios = "ABCDE12345.com.example.shop"
    static let fp = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")
    static let identities = AppIdentities(
        iosAppIDs: [ios], androidApps: [.init(packageName: "com.example.shop", fingerprints: [fp])])

    static func json(_ text: String, type: String = "application/json", status: Int = 200) -> FetchedFile {
        FetchedFile(url: "https://x.test/f", status: status, contentType: type, body: Array(text.utf8))
    }
    static let aasa =
        #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.shop"],"components":[{"/":"/orders/*"},"#
        + #"{"/":"/promo/*","exclude":true}]}]}}"#
    static func assetlinks(_ package: String = "com.example.shop", _ print: String = fp) -> String {
        #"[{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app","#
            + #""package_name":"\#(package)","sha256_cert_fingerprints":["\#(print)"]}}]"#
    }

    func verdicts(
        apple: FetchedFile?, android: FetchedFile?, cdn: FetchedFile? = nil, links: [String] = []
    ) -> [String: Verdict] {
        let check = DomainCheck(domain: "x.test", identities: Self.identities, links: links.compactMap(TappedLink.init))
        let results = check.evaluate(apple: apple, android: android, appleCDN: cdn)
        return Dictionary(
            results.map { ($0.check + ($0.subject.isEmpty ? "" : " " + $0.subject), $0.verdict) },
            uniquingKeysWith: { a, _ in a })
    }

    @Test func goodFilesPass() {
        let v = verdicts(
            apple: Self.json(Self.aasa), android: Self.json(Self.assetlinks()), cdn: Self.json(Self.aasa),
            links: ["https://x.test/orders/1", "https://x.test/orders/2?ref=push"])
        #expect(
            v == [
                "apple file": .ok, "apple app \(Self.ios)": .named, "apple path /orders/*": .covered,
                "apple cdn": .cdnSame,
                "android file": .ok, "android app com.example.shop": .named,
            ])
        #expect(v.values.allSatisfy { $0.passes })
    }

    @Test func servingProblems() {
        #expect(Self.json("", status: 404).servingProblem?.verdict == .missing)
        #expect(Self.json("", status: 500).servingProblem?.verdict == .httpError)
        var moved = Self.json("", status: 301)
        moved.redirectLocation = "https://www.x.test/.well-known/apple-app-site-association"
        #expect(moved.servingProblem?.verdict == .redirect)
        #expect(moved.servingProblem?.detail.contains("https://www.x.test/") == true)
        #expect(Self.json(Self.aasa, type: "text/html").servingProblem?.verdict == .wrongContentType)
        #expect(Self.json(Self.aasa, type: "application/json; charset=utf-8").servingProblem == nil)
        #expect(Self.json(Self.aasa, type: "Application/JSON").servingProblem == nil)
        var big = Self.json(Self.aasa)
        big.tooLarge = true
        #expect(big.servingProblem?.verdict == .tooLarge)
        #expect(
            FetchedFile(url: "https://x.test/f", status: nil, failure: "SSL certificate problem").servingProblem?
                .verdict == .unreachable)
    }

    @Test func contentProblems() {
        #expect(
            verdicts(apple: Self.json("{\"applinks\": "), android: Self.json("[{]"))
                == ["apple file": .badJSON, "android file": .badJSON])
        #expect(
            verdicts(apple: Self.json(#"{"webcredentials":{}}"#), android: Self.json(#"{"relation":[]}"#))
                == ["apple file": .badShape, "android file": .badShape])
        #expect(
            verdicts(apple: Self.json(#"{"applinks":{"details":[{"components":[]}]}}"#), android: nil)["apple file"]
                == .badShape)
        #expect(
            verdicts(
                apple: Self.json(#"{"applinks":{"details":[{"appID":"ABCDE12345.a","components":[{"/":7}]}]}}"#),
                android: nil)["apple file"] == .badShape)
    }

    @Test func identityProblems() {
        let otherApple = #"{"applinks":{"details":[{"appIDs":["ZZZZZ99999.com.other"],"components":[{"/":"*"}]}]}}"#
        let v = verdicts(
            apple: Self.json(otherApple), android: Self.json(Self.assetlinks("com.other")),
            links: ["https://x.test/orders/1"])
        #expect(
            v == [
                "apple file": .ok, "apple app \(Self.ios)": .notNamed, "android file": .ok,
                "android app com.example.shop": .notNamed,
            ])

        let lower = Self.fp.lowercased()
        #expect(
            verdicts(apple: nil, android: Self.json(Self.assetlinks("com.example.shop", lower)))[
                "android app com.example.shop"] == .fingerprintMalformed)
        let noColons = Self.fp.replacingOccurrences(of: ":", with: "")
        #expect(
            verdicts(apple: nil, android: Self.json(Self.assetlinks("com.example.shop", noColons)))[
                "android app com.example.shop"] == .fingerprintMalformed)
        let other = String(repeating: "AB:", count: 31) + "AB"
        #expect(
            verdicts(apple: nil, android: Self.json(Self.assetlinks("com.example.shop", other)))[
                "android app com.example.shop"] == .fingerprintMismatch)
    }

    @Test func pathProblems() {
        let v = verdicts(
            apple: Self.json(Self.aasa), android: nil,
            links: [
                "https://x.test/orders/1", "https://x.test/promo/spring", "https://x.test/chat",
                "https://x.test/orders/2",
            ])
        #expect(v["apple path /orders/*"] == .covered)
        #expect(v["apple path /promo/*"] == .excluded)
        #expect(v["apple path /chat"] == .notCovered)
    }

    @Test func aGroupFailsWhenOneLinkIsNotCovered() {
        let json =
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.shop"],"components":[{"/":"/orders/1"}]}]}}"#
        let v = verdicts(
            apple: Self.json(json), android: nil, links: ["https://x.test/orders/1", "https://x.test/orders/2"])
        #expect(v["apple path /orders/*"] == .notCovered)
    }

    @Test func cdnComparison() {
        let stale =
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.shop"],"components":[{"/":"/old/*"}]}]}}"#
        let reformatted = Self.aasa.replacingOccurrences(of: ",", with: ",\n  ")
        #expect(
            verdicts(apple: Self.json(Self.aasa), android: nil, cdn: Self.json(reformatted))["apple cdn"] == .cdnSame)
        #expect(verdicts(apple: Self.json(Self.aasa), android: nil, cdn: Self.json(stale))["apple cdn"] == .cdnDiffers)
        #expect(
            verdicts(apple: Self.json(Self.aasa), android: nil, cdn: Self.json("", status: 404))["apple cdn"]
                == .cdnDiffers)
        #expect(
            verdicts(apple: Self.json("", status: 404), android: nil, cdn: Self.json(Self.aasa))["apple cdn"]
                == .cdnDiffers)
    }

    @Test func identitiesAreValidated() {
        #expect(AppIdentities.problem(iosAppID: "ABCDE12345.com.example.shop") == nil)
        #expect(AppIdentities.problem(iosAppID: "com.example.shop") != nil)
        #expect(AppIdentities.problem(iosAppID: "abcde12345.com.example.shop") != nil)
        #expect(AppIdentities.problem(androidPackage: "com.example.shop") == nil)
        #expect(AppIdentities.problem(androidPackage: "shop") != nil)
        #expect(AppIdentities.problem(androidPackage: "com.1example") != nil)
        #expect(
            CertificateFingerprint.normalized(Self.fp.lowercased().replacingOccurrences(of: ":", with: "")) == Self.fp)
        #expect(CertificateFingerprint.normalized("AB:CD") == nil)
        #expect(CertificateFingerprint.isCanonical(Self.fp))
        #expect(!CertificateFingerprint.isCanonical(Self.fp.lowercased()))
    }

    @Test func webStatementsAreIgnored() throws {
        let json =
            #"[{"relation":["delegate_permission/common.get_login_creds"],"target":{"namespace":"web","#
            + #""site":"https://x.test"}}]"#
        #expect(try AssetLinks(json: Array(json.utf8)).statements.isEmpty)
    }
}
