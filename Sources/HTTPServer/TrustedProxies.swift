import Foundation

/// An IPv4 address range written `a.b.c.d/n` (a bare address is `/32`).
public struct IPv4Range: Sendable, Equatable, CustomStringConvertible {
    /// The network address, host byte order, host bits cleared.
    public let network: UInt32
    public let prefixLength: Int

    /// Parses `10.0.0.0/8`, `127.0.0.1`; nil for anything else (host bits set are cleared).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = Self.address(String(parts[0])) else { return nil }
        var length = 32
        if parts.count == 2 {
            guard parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(parts[1]), (0...32).contains(n) else {
                return nil
            }
            length = n
        }
        prefixLength = length
        network = address & Self.mask(length)
    }

    /// A dotted-quad IPv4 address in host byte order; nil when it is not one.
    public static func address(_ text: String) -> UInt32? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var value: UInt32 = 0
        for octet in octets {
            guard (1...3).contains(octet.count), octet.allSatisfy({ $0.isASCII && $0.isNumber }),
                let byte = UInt8(octet)
            else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }

    static func mask(_ length: Int) -> UInt32 { length == 0 ? 0 : ~UInt32(0) << (32 - length) }

    public func contains(_ address: UInt32) -> Bool { address & Self.mask(prefixLength) == network }

    public var description: String {
        let n = network
        return "\(n >> 24).\(n >> 16 & 255).\(n >> 8 & 255).\(n & 255)/\(prefixLength)"
    }
}

/// Which peers may say who the client is (`X-Forwarded-For`), for `serve --trusted-proxy`.
///
/// The client address is the connection's peer, unless the peer is a trusted proxy: then it is
/// the right-most address of `X-Forwarded-For` that is not itself a trusted proxy (each proxy
/// appends the address it saw, so everything left of the first untrusted hop could have been
/// written by the client and is ignored). A header from an untrusted peer is ignored entirely.
public struct TrustedProxies: Sendable, Equatable {
    public var ranges: [IPv4Range]

    public init(_ ranges: [IPv4Range] = []) { self.ranges = ranges }

    /// Parses `--trusted-proxy` values (each a CIDR range or an address, or a comma-separated
    /// list of them as in `PUSHLEDGER_TRUSTED_PROXIES`); throws naming the first bad one.
    public init(parsing values: [String]) throws(InvalidRange) {
        var ranges: [IPv4Range] = []
        for value in values {
            for item in value.split(separator: ",") {
                let text = item.trimmingCharacters(in: .whitespaces)
                guard let range = IPv4Range(text) else { throw InvalidRange(text: text) }
                ranges.append(range)
            }
        }
        self.ranges = ranges
    }

    public struct InvalidRange: Error, Equatable, CustomStringConvertible {
        public let text: String
        public var description: String { "'\(text)' is not an IPv4 address or CIDR range such as 10.0.0.0/8" }
    }

    public func isTrusted(_ address: UInt32) -> Bool { ranges.contains { $0.contains(address) } }

    /// The address to treat as the client's (dotted quad), from the peer and its `X-Forwarded-For`.
    public func clientAddress(peer: String, forwardedFor: String?) -> String {
        guard let peerAddress = IPv4Range.address(peer), isTrusted(peerAddress), let forwardedFor else { return peer }
        var client = peer
        for hop in forwardedFor.split(separator: ",").reversed() {
            let text = hop.trimmingCharacters(in: .whitespaces)
            // Something that is not an address ends the chain: nothing further left can be trusted.
            guard let address = IPv4Range.address(text) else { break }
            client = text
            if !isTrusted(address) { break }
        }
        return client
    }
}
