// The project's own JSON model. We keep numbers as their literal text and objects as ordered
// member lists because the contract needs what was sent (event sizes, raw text, duplicate
// keys) and our reports need deterministic key order; Foundation's JSON types give neither.

/// A JSON number kept as its literal text, so nothing is lost or reformatted.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal as it appeared (or was built), always valid JSON number syntax.
    public let text: String
    /// The value when the literal is an integer (no fraction, no exponent) that fits `Int64`.
    public let int64Value: Int64?

    /// Trusted constructor for the parser, which has already checked the syntax.
    init(validatedText: String, int64Value: Int64?) {
        self.text = validatedText
        self.int64Value = int64Value
    }

    /// An integer, spelled in decimal.
    public init(_ value: Int64) {
        self.text = String(value)
        self.int64Value = value
    }

    public init(_ value: Int) { self.init(Int64(value)) }

    /// nil for infinities and NaN, which JSON cannot express.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 {
            self.init(Int64(value))
        } else {
            self.init(validatedText: String(value), int64Value: nil)
        }
    }

    /// A literal checked against the JSON number grammar; nil when it is not one.
    public init?(literal: String) {
        var bytes = Array(literal.utf8)
        guard let scanned = bytes.withUnsafeMutableBufferPointer({ JSONNumber.scan(UnsafeBufferPointer($0), from: 0) }),
            scanned.end == bytes.count
        else { return nil }
        self.text = literal
        self.int64Value = scanned.int64
    }

    /// The value as a `Double` (may round; large exponents give ±infinity).
    public var doubleValue: Double { Double(text) ?? .nan }

    public var description: String { text }

    /// Equal when the literals are equal: `1.0` and `1` are different texts on the wire.
    public static func == (a: JSONNumber, b: JSONNumber) -> Bool { a.text == b.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Scans one number at `start`: its end offset and, for integer literals that fit, the value.
    /// nil when the bytes at `start` are not a valid number.
    static func scan(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, int64: Int64?)? {
        var i = start
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        guard i < b.count, isDigit(b[i]) else { return nil }
        // Accumulate negatively so Int64.min fits.
        var value: Int64 = 0
        var fits = true
        if b[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while i < b.count, isDigit(b[i]) {
                if fits {
                    let (m, o1) = value.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.subtractingReportingOverflow(Int64(b[i] &- 48))
                    if o1 || o2 { fits = false } else { value = s }
                }
                i += 1
            }
        }
        var integral = true
        if i < b.count, b[i] == UInt8(ascii: ".") {
            integral = false
            i += 1
            guard i < b.count, isDigit(b[i]) else { return nil }
            while i < b.count, isDigit(b[i]) { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            integral = false
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < b.count, isDigit(b[i]) else { return nil }
            while i < b.count, isDigit(b[i]) { i += 1 }
        }
        guard integral, fits else { return (i, nil) }
        if negative { return (i, value) }
        return value == .min ? (i, nil) : (i, -value)
    }

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- 48 < 10 }
}

/// A JSON object: members in the order they were sent or built, duplicates kept (the parser
/// does not judge them; the contract validator rejects them).
public struct JSONObject: Sendable, Equatable {
    /// One `"key": value` pair.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// In the order sent or built.
    public var members: [Member]

    public init(_ members: [Member] = []) { self.members = members }

    /// Members from (key, value) pairs, in order.
    public init(_ pairs: [(String, JSONValue)]) { self.members = pairs.map { Member(key: $0.0, value: $0.1) } }

    /// The first member's value with this key (objects here are small; a scan beats hashing).
    public subscript(key: String) -> JSONValue? {
        for member in members where Self.sameKey(member.key, key) { return member.value }
        return nil
    }

    /// Byte counts first: most keys differ in length, and that test is far cheaper than `==`.
    @inline(__always) static func sameKey(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a == b
    }

    /// The first key that occurs more than once, if any.
    public var firstDuplicateKey: String? {
        if members.count < 2 { return nil }
        if members.count <= 32 {
            for i in 1..<members.count {
                for j in 0..<i where Self.sameKey(members[j].key, members[i].key) { return members[i].key }
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: members.count)
        for member in members where !seen.insert(member.key).inserted { return member.key }
        return nil
    }

    /// Appends a member (builders call this; order is kept as written).
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }
}

/// One JSON value.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
    /// Non-finite values become `null`: JSON has no spelling for them.
    public static func double(_ value: Double) -> JSONValue { JSONNumber(value).map(JSONValue.number) ?? .null }

    // Typed views: nil (or false) when the value is of another kind.
    public var isNull: Bool { if case .null = self { true } else { false } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var numberValue: JSONNumber? { if case .number(let n) = self { n } else { nil } }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }

    /// The member of an object (first one with the key); nil for non-objects.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// A short name of the kind of value, for error messages ("expected a string, got a number").
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

// Literal conformances are the builder: `["accepted": 3, "rejected": []]` keeps key order.
extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
}

// Built in code as `.object([("key", value), …])`: keys keep the order written.
extension JSONObject: ExpressibleByArrayLiteral {
    public init(arrayLiteral pairs: (String, JSONValue)...) { self.init(pairs) }
}
