import Testing

@testable import LinkCheck

/// The matching rules on the examples Apple documents for `components` and legacy `paths`.
@Suite struct MatcherTests {
    @Test func wildcards() {
        #expect(WildcardPattern("/buy/*").matches("/buy/"))
        #expect(WildcardPattern("/buy/*").matches("/buy/shoes/42"))
        #expect(!WildcardPattern("/buy/*").matches("/buy"))
        #expect(WildcardPattern("????").matches("1234"))
        #expect(!WildcardPattern("????").matches("123"))
        #expect(!WildcardPattern("????").matches("12345"))
        #expect(WildcardPattern("*").matches(""))
        #expect(WildcardPattern("/a*b*c").matches("/a-x-b-y-c"))
        #expect(!WildcardPattern("/a*b*c").matches("/a-x-b-y-d"))
        #expect(!WildcardPattern("/Orders/*").matches("/orders/1"))
        #expect(WildcardPattern("/Orders/*", caseSensitive: false).matches("/orders/1"))
    }

    @Test func aHostilePatternStaysLinear() {
        let pattern = WildcardPattern(String(repeating: "*a", count: 200) + "b")
        #expect(!pattern.matches(String(repeating: "a", count: 5_000)))
    }

    /// Apple's example in "Supporting associated domains": order matters and the first match wins.
    static let documented = """
        {"applinks": {"details": [{
          "appIDs": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app.debug"],
          "components": [
            {"#": "no_universal_links", "exclude": true, "comment": "fragment opt-out"},
            {"/": "/buy/*"},
            {"/": "/help/website/*", "exclude": true},
            {"/": "/help/*", "?": {"articleNumber": "????"}}
          ]}]}}
        """

    func coverage(
        _ link: String, _ json: String = documented, app: String = "ABCDE12345.com.example.app"
    ) throws -> AppleAssociation.Coverage {
        let association = try AppleAssociation(json: Array(json.utf8))
        return association.coverage(of: try #require(TappedLink(link)), for: app)
    }

    @Test func documentedComponents() throws {
        #expect(try coverage("https://example.com/buy/shoes") == .covered(rule: "/buy/*"))
        #expect(
            try coverage("https://example.com/buy/shoes#no_universal_links")
                == .excluded(rule: "exclude *#no_universal_links"))
        #expect(try coverage("https://example.com/help/website/faq") == .excluded(rule: "exclude /help/website/*"))
        #expect(
            try coverage("https://example.com/help/printing?articleNumber=1234")
                == .covered(rule: "/help/*?articleNumber=????"))
        #expect(try coverage("https://example.com/help/printing?articleNumber=12345") == .notCovered)
        #expect(try coverage("https://example.com/help/printing") == .notCovered)
        #expect(try coverage("https://example.com/sell/car") == .notCovered)
        #expect(
            try coverage("https://example.com/buy/x", app: "ABCDE12345.com.example.app.debug")
                == .covered(rule: "/buy/*"))
        #expect(try coverage("https://example.com/buy/x", app: "ZZZZZ99999.com.other") == .notCovered)
    }

    @Test func orderDecides() throws {
        let excludeFirst =
            #"{"applinks":{"details":[{"appID":"ABCDE12345.com.example.app","components":[{"/":"/orders/archive/*","#
            + #""exclude":true},{"/":"/orders/*"}]}]}}"#
        let includeFirst =
            #"{"applinks":{"details":[{"appID":"ABCDE12345.com.example.app","components":[{"/":"/orders/*"},"#
            + #"{"/":"/orders/archive/*","exclude":true}]}]}}"#
        #expect(
            try coverage("https://x.test/orders/archive/7", excludeFirst)
                == .excluded(rule: "exclude /orders/archive/*"))
        #expect(try coverage("https://x.test/orders/archive/7", includeFirst) == .covered(rule: "/orders/*"))
    }

    @Test func queryPatternAndFragmentConditions() throws {
        let json =
            ##"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/p/*","##
            + ##""?":"ref=push*"},{"/":"/f","#":"sec-?"}]}]}}"##
        #expect(try coverage("https://x.test/p/1?ref=push-7", json) == .covered(rule: "/p/*?ref=push*"))
        #expect(try coverage("https://x.test/p/1?ref=mail", json) == .notCovered)
        #expect(try coverage("https://x.test/p/1", json) == .notCovered)
        #expect(try coverage("https://x.test/f#sec-2", json) == .covered(rule: "/f#sec-?"))
        #expect(try coverage("https://x.test/f#sec-22", json) == .notCovered)
        #expect(try coverage("https://x.test/f", json) == .notCovered)
    }

    @Test func caseSensitivityDefaultsAndOverrides() throws {
        let json =
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"defaults":{"caseSensitive":false},"#
            + #""components":[{"/":"/Shop/*"},{"/":"/Exact","caseSensitive":true}]}]}}"#
        #expect(try coverage("https://x.test/shop/1", json) == .covered(rule: "/Shop/*"))
        #expect(try coverage("https://x.test/exact", json) == .notCovered)
    }

    /// The legacy form Apple documented before components: `NOT ` excludes, first match wins.
    @Test func legacyPaths() throws {
        let json =
            #"{"applinks":{"apps":[],"details":[{"appID":"ABCDE12345.com.example.app","paths":["/wwdc/news/","#
            + #""NOT /videos/wwdc/2010/*","/videos/wwdc/201?/*"]}]}}"#
        #expect(try coverage("https://x.test/wwdc/news/", json) == .covered(rule: "/wwdc/news/"))
        #expect(try coverage("https://x.test/videos/wwdc/2010/a", json) == .excluded(rule: "NOT /videos/wwdc/2010/*"))
        #expect(try coverage("https://x.test/videos/wwdc/2015/a", json) == .covered(rule: "/videos/wwdc/201?/*"))
        #expect(try coverage("https://x.test/videos/wwdc/2020/a", json) == .notCovered)
    }

    @Test func componentsWinOverPaths() throws {
        let json =
            #"{"applinks":{"details":[{"appID":"ABCDE12345.com.example.app","paths":["*"],"#
            + #""components":[{"/":"/only/*"}]}]}}"#
        #expect(try coverage("https://x.test/other", json) == .notCovered)
    }

    @Test func pathGroups() throws {
        #expect(try #require(TappedLink("https://Shop.Example.com/orders/81/items?x=1")).pathGroup == "/orders/*")
        #expect(try #require(TappedLink("https://shop.example.com/chat")).pathGroup == "/chat")
        #expect(try #require(TappedLink("https://shop.example.com")).pathGroup == "/")
        #expect(try #require(TappedLink("https://Shop.Example.com/a")).host == "shop.example.com")
        #expect(TappedLink("myapp://orders/1") == nil)
        #expect(TappedLink("not a url") == nil)
    }
}
