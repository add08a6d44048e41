import Testing

@testable import HTTPServer

@Suite struct TrustedProxiesTests {
    @Test func rangesParseAddressesAndPrefixes() throws {
        #expect(IPv4Range("10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(IPv4Range("127.0.0.1")?.description == "127.0.0.1/32")
        #expect(IPv4Range("0.0.0.0/0")?.contains(IPv4Range.address("203.0.113.9")!) == true)
        for bad in [
            "", "10.0.0", "10.0.0.256", "10.0.0.1/33", "10.0.0.1/", "10.0.0.1/+8", "::1", "a.b.c.d", "1.2.3.4/8/9",
            "01234.1.1.1",
        ] {
            #expect(IPv4Range(bad) == nil, "\(bad)")
        }
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8, 192.168.1.7", "127.0.0.1"])
        #expect(proxies.ranges.map(\.description) == ["10.0.0.0/8", "192.168.1.7/32", "127.0.0.1/32"])
        #expect(throws: TrustedProxies.InvalidRange(text: "10.0.0.0/40")) {
            try TrustedProxies(parsing: ["127.0.0.1,10.0.0.0/40"])
        }
    }

    @Test func theForwardedAddressCountsOnlyFromATrustedPeer() throws {
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8"])
        // No proxy configured, or an untrusted peer: the header is the client's own claim.
        #expect(TrustedProxies().clientAddress(peer: "10.0.0.5", forwardedFor: "198.51.100.1") == "10.0.0.5")
        #expect(proxies.clientAddress(peer: "203.0.113.9", forwardedFor: "198.51.100.1") == "203.0.113.9")
        // A trusted proxy: the right-most hop it did not add itself.
        #expect(proxies.clientAddress(peer: "10.0.0.5", forwardedFor: "198.51.100.1") == "198.51.100.1")
        #expect(proxies.clientAddress(peer: "10.0.0.5", forwardedFor: nil) == "10.0.0.5")
        // A phone that forges the header gets its forgery ignored: nginx appends the real peer.
        #expect(proxies.clientAddress(peer: "10.0.0.5", forwardedFor: "1.2.3.4, 198.51.100.1") == "198.51.100.1")
        // Chains of trusted proxies are walked through.
        #expect(proxies.clientAddress(peer: "10.0.0.5", forwardedFor: "198.51.100.1, 10.9.9.9") == "198.51.100.1")
        // Garbage stops the walk at the last good hop; all-trusted chains give the left-most.
        #expect(proxies.clientAddress(peer: "10.0.0.5", forwardedFor: "198.51.100.1, junk, 10.9.9.9") == "10.9.9.9")
        #expect(proxies.clientAddress(peer: "10.0.0.5", forwardedFor: "10.1.1.1, 10.9.9.9") == "10.1.1.1")
    }
}
