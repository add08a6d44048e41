import Foundation
import PushLedgerSupport

/// What storage needs of every value, whatever the contract allows on the wire: PostgreSQL
/// `text` holds no U+0000, `timestamptz` input refuses year 0, and the failed-event store keeps
/// a bounded prefix of what it is given. One definition, used by every validator.
public enum StorageRules {
    /// 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z in microseconds since 1970: the times
    /// RFC 3339 can write with four year digits after the offset is applied. A time outside is
    /// `invalid_field` (a field) or `too_old` / `in_future` (a skew-corrected time).
    /// Largest Web Push `ttl_seconds` (contract v1.3): 28 days, the longest push services keep a message.
    public static let maxTTLSeconds: Int64 = 2_419_200

    public static let timeRange: ClosedRange<Int64> = -62_135_596_800_000_000...253_402_300_799_999_999

    /// Why a parsed time cannot be stored (nil when it can).
    public static func timeProblem(_ microseconds: Int64) -> String? {
        timeRange.contains(microseconds)
            ? nil : "expected a time from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z (UTC)"
    }

    /// A value from the request as a message may show it: control characters, format
    /// characters (bidi overrides, zero-width) and separators written as `\u{…}`, so a message
    /// holds no U+0000 and cannot rearrange a terminal or a log line; at most `maxScalars`
    /// scalars, then `…`.
    public static func printable(_ text: String, maxScalars: Int = 64) -> String {
        var out = ""
        for (count, scalar) in text.unicodeScalars.enumerated() {
            if count == maxScalars {
                out += "…"
                break
            }
            out += isInert(scalar) ? String(scalar) : "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        }
        return out
    }

    /// Shown as is: not a control (Cc), format (Cf), separator (Zl, Zp), surrogate or
    /// unassigned/private-use scalar.
    public static func isInert(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: false
        default: true
        }
    }
}

/// A refused body or a rejected event as the failed-event store keeps it: at most
/// `maxStoredBytes` of its text (cut at a character boundary, U+0000 and invalid UTF-8 as
/// U+FFFD), with the length and SHA-256 of all the bytes received, so storage per request is
/// bounded and the whole is still identifiable.
public struct FailedText: Sendable, Equatable, ExpressibleByStringLiteral {
    /// Bytes of text kept at most (8 KiB: enough to see what was wrong).
    public static let maxStoredBytes = 8 << 10

    /// The stored prefix.
    public var prefix: String
    /// Bytes received.
    public var byteCount: Int
    /// SHA-256 of the bytes received.
    public var sha256: [UInt8]

    public init(_ bytes: ArraySlice<UInt8>) {
        byteCount = bytes.count
        sha256 = bytes.isEmpty ? SHA256.hash([]) : SHA256.hash(Array(bytes))
        var end = bytes.startIndex + min(bytes.count, Self.maxStoredBytes)
        // Back off to a scalar boundary (continuation bytes are 10xxxxxx), at most 3 bytes.
        if end < bytes.endIndex {
            var back = 0
            while back < 3, end > bytes.startIndex, bytes[end] & 0xC0 == 0x80 {
                end -= 1
                back += 1
            }
        }
        prefix = Rejection.storableText(bytes[bytes.startIndex..<end])
    }

    public init(_ text: String) { self.init(ArraySlice(text.utf8)) }
    public init(stringLiteral value: String) { self.init(value) }

    /// The whole text was kept.
    public var isComplete: Bool { byteCount <= Self.maxStoredBytes }
}

/// Whose request a failed event was: what erasure finds it by.
public struct FailedSubject: Sendable, Equatable {
    public var installationID: UUID?
    /// A push token as sent (APNs hex lower-cased), when the event or send named one.
    public var token: String?
    public init(installationID: UUID? = nil, token: String? = nil) {
        self.installationID = installationID
        self.token = token
    }

    /// Read from a rejected event or send, whatever else is wrong with it: a canonical UUID in
    /// `installation_id`, and a `token` string that storage can hold.
    public init(_ value: JSONValue?) {
        installationID = value?["installation_id"]?.stringValue.flatMap(ContractFormat.uuid)
        token = value?["token"]?.stringValue.flatMap(Self.storableToken)
    }

    /// A token as the erasure compares it: APNs hex lower-cased like accepted tokens; nil
    /// when it cannot be stored or is no token at all.
    static func storableToken(_ text: String) -> String? {
        guard FieldReader.stringProblem(text, maxBytes: 4096) == nil else { return nil }
        return ContractFormat.isAPNsToken(text) ? text.lowercased() : text
    }

    /// The subject of a body refused as a whole: its top-level `installation_id` when the body
    /// is a JSON object that has a valid one.
    public static func ofBody(_ bytes: [UInt8], limits: IngestLimits) -> FailedSubject {
        guard let object = (try? JSONParser.parseValue(bytes, options: limits.bodyParseOptions))?.objectValue else {
            return FailedSubject()
        }
        return FailedSubject(installationID: object["installation_id"]?.stringValue.flatMap(ContractFormat.uuid))
    }
}

extension ContractFormat {
    /// App ids are compared byte for byte: Swift's `==` holds canonically equivalent strings
    /// equal (`com.\u{212A}ayak.app` and `com.Kayak.app`), which would let one app's key write
    /// rows under a lookalike app id.
    public static func sameAppID(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
}

extension IngestLimits {
    /// JSON values a request may hold per event of the event cap: an event is 6 to 20 values,
    /// an Android settings snapshot 5 more per channel (over 20 channels fit).
    public static let jsonValuesPerEvent = 128

    /// The parser's value budget for one body: `jsonValuesPerEvent` for each event the cap
    /// allows, plus 64 for the envelope. Parsing stops there, so a body's parsed size is
    /// bounded by the event cap whatever its byte size (docs/reliability.md has the formula).
    public var maxJSONValues: Int {
        let (events, overflow) = max(0, maxEventsPerRequest).multipliedReportingOverflow(by: Self.jsonValuesPerEvent)
        return overflow ? .max : events + 64
    }

    /// Parser options for a whole request body.
    var bodyParseOptions: JSONParseOptions { JSONParseOptions(maxValues: maxJSONValues) }
    /// Parser options for one NDJSON line (one send).
    var lineParseOptions: JSONParseOptions { JSONParseOptions(maxValues: Self.jsonValuesPerEvent) }
}
