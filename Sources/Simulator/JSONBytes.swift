import PushLedgerSupport

/// Builds JSON text straight into bytes: the generator writes about a million events per
/// run, far too many for JSONSerialization. Only what the simulator emits is supported
/// (its strings are plain ASCII slugs, versions, URLs and hex tokens).
struct JSONBytes {
    var bytes: [UInt8] = []

    init(capacity: Int = 1_024) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ byte: UInt8) { bytes.append(byte) }

    /// Text known to be valid JSON as it is (a number's description).
    mutating func raw(contentsOf text: String) { bytes.append(contentsOf: text.utf8) }

    /// A quoted string, escaped as `JSONWriter` escapes.
    mutating func string(_ value: String) { JSONWriter.appendQuoted(value, to: &bytes) }

    /// `"key":` — keys are static.
    mutating func key(_ name: StaticString) {
        bytes.append(0x22)
        raw(name)
        bytes.append(0x22)
        bytes.append(0x3A)
    }

    /// `,"name":` — every field after an object's first one.
    mutating func next(_ name: StaticString) {
        bytes.append(0x2C)
        key(name)
    }

    mutating func field(_ name: StaticString, _ value: String) {
        next(name)
        string(value)
    }

    mutating func field(_ name: StaticString, uuid value: SimUUID) {
        next(name)
        uuid(value)
    }

    mutating func field(_ name: StaticString, int value: Int64) {
        next(name)
        int(value)
    }

    mutating func field(_ name: StaticString, time value: Int64) {
        next(name)
        time(value)
    }

    mutating func field(_ name: StaticString, bool value: Bool) {
        next(name)
        bool(value)
    }

    /// A string field written as null when absent.
    mutating func field(_ name: StaticString, nullable value: String?) {
        next(name)
        if let value { string(value) } else { raw("null") }
    }

    mutating func int(_ value: Int64) { bytes.append(contentsOf: String(value).utf8) }

    mutating func uint(_ value: UInt64) { bytes.append(contentsOf: String(value).utf8) }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    mutating func uuid(_ id: SimUUID) {
        bytes.append(0x22)
        SimTime.appendUUID(id, to: &bytes)
        bytes.append(0x22)
    }

    /// RFC 3339 UTC with milliseconds, e.g. "2026-11-30T10:00:05.120Z".
    mutating func time(_ ms: Int64) {
        bytes.append(0x22)
        SimTime.appendRFC3339(ms, to: &bytes)
        bytes.append(0x22)
    }
}

/// Time and id formatting shared by the encoders and the runner (which re-stamps `sent_at`).
enum SimTime {
    static let msPerMinute: Int64 = 60_000
    static let msPerHour: Int64 = 3_600_000
    static let msPerDay: Int64 = 86_400_000
    /// Length of an RFC 3339 text as written here ("YYYY-MM-DDTHH:MM:SS.mmmZ").
    static let rfc3339Length = 24

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func appendUUID(_ id: SimUUID, to bytes: inout [UInt8]) {
        for i in 0..<32 {
            if i == 8 || i == 12 || i == 16 || i == 20 { bytes.append(0x2D) }
            let word = i < 16 ? id.hi : id.lo
            let shift = UInt64(60 - 4 * (i % 16))
            bytes.append(hex[Int((word >> shift) & 0xF)])
        }
    }

    static func uuidString(_ id: SimUUID) -> String {
        var bytes: [UInt8] = []
        appendUUID(id, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendRFC3339(_ ms: Int64, to bytes: inout [UInt8]) {
        Timestamp.appendRFC3339(microseconds: ms * 1_000, fractionDigits: 3, to: &bytes)
    }

    static func rfc3339(_ ms: Int64) -> String { Timestamp.rfc3339(microseconds: ms * 1_000, fractionDigits: 3) }

    /// UTC day index (days since 1970-01-01) of a time.
    static func day(_ ms: Int64) -> Int64 { floorDiv(ms, msPerDay) }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
