import Foundation
import PushLedgerSupport

// The contract's scalar formats, parsed by hand on UTF-8 bytes: they run for every field of
// every event, and we want exactly the accepted syntax (Foundation is laxer in places).

/// RFC 3339 timestamps: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm)`.
public enum RFC3339 {
    /// Microseconds since 1970 (UTC), or nil when the text is not RFC 3339. Fractions keep
    /// microseconds (further digits are truncated, as the store keeps microseconds); `T`/`Z`
    /// may be lower case (RFC 3339 §5.6); a leap second `:60` rolls into the next minute.
    public static func microseconds(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// The time as a `Date`, or nil when the text is not RFC 3339.
    public static func date(_ text: String) -> Date? { microseconds(text).map(date(microseconds:)) }

    public static func date(microseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(microseconds) / 1e6) }

    /// Rounded to the microsecond.
    public static func microseconds(of date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1e6).rounded()) }

    /// `2026-11-30T10:00:05.120000Z`: UTC, always six fraction digits.
    public static func format(_ date: Date) -> String { format(microseconds: microseconds(of: date)) }

    public static func format(microseconds: Int64) -> String {
        Timestamp.rfc3339(microseconds: microseconds, fractionDigits: 6)
    }

    /// The strict form of the one date-time grammar (``DateTimeText``): the `T`, the seconds and an
    /// offset `Z` or `±hh:mm` are required, a leap second allowed. Bytes in, microseconds out.
    static func parse(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard case .success(let written) = DateTimeText.parse(s, leapSecond: true), let time = written.time,
            time.separator != UInt8(ascii: " "), time.second != nil, time.offset?.isRFC3339 == true,
            let seconds = written.secondsSince1970
        else { return nil }
        return Int64(seconds) * 1_000_000 + time.fractionMicroseconds
    }
}

extension Int64 {
    /// Quotient rounded down and a non-negative remainder (times before 1970 format correctly).
    func floorDiv(_ d: Int64) -> (Int64, Int64) {
        let q = self / d, r = self % d
        return r < 0 ? (q - 1, r + d) : (q, r)
    }
}

/// The contract's identifier and token formats.
public enum ContractFormat {
    /// A UUID in canonical 8-4-4-4-12 hex form, any case; nil otherwise (no braces, no URN).
    public static func uuid(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { s -> UUID? in
            guard s.count == 36 else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let ok = withUnsafeMutableBytes(of: &value) { bytes -> Bool in
                var out = 0
                var k = 0
                while k < 36 {
                    if k == 8 || k == 13 || k == 18 || k == 23 {
                        guard s[k] == UInt8(ascii: "-") else { return false }
                        k += 1
                        continue
                    }
                    guard let hi = hexValue(s[k]), let lo = hexValue(s[k + 1]) else { return false }
                    bytes[out] = hi << 4 | lo
                    out += 1
                    k += 2
                }
                return true
            }
            return ok ? UUID(uuid: value) : nil
        }
    }

    /// `[a-z0-9_]{1,64}`: placements, experiments and variants (they become report labels).
    public static func isSlug(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (1...64).contains(utf8.count)
            && utf8.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 &- 48 < 10 || $0 == UInt8(ascii: "_")
            }
    }

    /// An APNs device token: hex of even length 64…200 (Apple says not to hard-code 64).
    public static func isAPNsToken(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (64...200).contains(utf8.count) && utf8.count % 2 == 0 && utf8.allSatisfy { hexValue($0) != nil }
    }

    /// An FCM registration token: 1…4,096 printable ASCII characters.
    public static func isFCMToken(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (1...4096).contains(utf8.count) && utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// A Web Push subscription endpoint (contract v1.3): an absolute `https://` URL with a host,
    /// 1…2,048 bytes of printable ASCII.
    public static func isWebPushEndpoint(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (1...2048).contains(utf8.count), utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        return PushService.host(ofEndpoint: text) != nil
    }

    /// A Web Push `Topic` (contract v1.3): 1…32 characters of the URL-safe base64 alphabet.
    public static func isTopic(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (1...32).contains(utf8.count)
            && utf8.allSatisfy { isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    @inline(__always) static func isASCIIAlphanumeric(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
    }

    /// A collapse id: 1…64 bytes of printable ASCII (contract v1.2, on sends).
    public static func isCollapseID(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (1...64).contains(utf8.count) && utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    @inline(__always) static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - 55
        default: nil
        }
    }
}

/// The push service behind a Web Push endpoint (contract v1.3), from the endpoint's host.
public enum PushService: String, Sendable, Codable, CaseIterable {
    case fcm, mozilla, apple, windows, other

    /// Hosts (and, after a dot, their subdomains) of each known push service.
    static let hosts: [(suffix: String, service: PushService)] = [
        ("fcm.googleapis.com", .fcm), ("android.googleapis.com", .fcm),
        ("push.services.mozilla.com", .mozilla), ("push.apple.com", .apple), ("notify.windows.com", .windows),
    ]

    /// The service of a valid endpoint; `other` for an unknown host.
    public init(endpoint: String) {
        let host = Self.host(ofEndpoint: endpoint) ?? ""
        self = Self.hosts.first { host == $0.suffix || host.hasSuffix("." + $0.suffix) }?.service ?? .other
    }

    /// The lower-cased host of an `https://` URL (without user info or port); nil when it has none.
    static func host(ofEndpoint text: String) -> String? {
        guard text.utf8.count > 8, text.prefix(8).lowercased() == "https://" else { return nil }
        let authority = text.dropFirst(8).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let host: Substring
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return nil }
            host = hostAndPort[...close]
        } else {
            host = hostAndPort.prefix { $0 != ":" }
        }
        return host.isEmpty ? nil : host.lowercased()
    }
}
