// A strict RFC 8259 parser over UTF-8 bytes. It works on an unsafe buffer, byte by byte, and
// builds strings from validated slices in one go: the ingest server parses up to 8 MiB per
// request, so per-character `String` work would dominate.

/// Why a text is not JSON: the byte offset where it went wrong and a message for people.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Offset of the offending byte from the start of the input.
    public var offset: Int
    public var message: String
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

/// Limits that keep hostile input from costing stack or memory.
public struct JSONParseOptions: Sendable, Equatable {
    /// Arrays and objects nested deeper than this are rejected (protects the stack).
    public var maxDepth = 64
    /// Number literals longer than this many characters are rejected.
    public var maxNumberLength = 64
    /// Values (strings, numbers, literals, arrays, objects, at any depth) beyond this many are
    /// rejected before they are built: the parsed document's memory is bounded by it, not by
    /// the body's size.
    public var maxValues = Int.max
    public init(maxDepth: Int = 64, maxNumberLength: Int = 64, maxValues: Int = .max) {
        self.maxDepth = maxDepth
        self.maxNumberLength = maxNumberLength
        self.maxValues = maxValues
    }
}

/// A parsed text plus the byte ranges callers need to slice out elements as sent.
public struct JSONDocument: Sendable, Equatable {
    public var value: JSONValue
    /// When the top level is an array: the byte range of each element (no surrounding space).
    public var elementRanges: [Range<Int>]
    /// When the top level is an object: for each member (by position) whose value is an array,
    /// the byte ranges of that array's elements. This is how `events` and `sends` are sliced.
    public var memberElementRanges: [Int: [Range<Int>]]

    /// Element ranges of the array held by the first member named `key`, if it is one.
    public func elementRanges(ofMember key: String) -> [Range<Int>]? {
        guard case .object(let object) = value,
            let index = object.members.firstIndex(where: { $0.key == key })
        else { return nil }
        return memberElementRanges[index]
    }
}

/// Entry points of the parser.
public enum JSONParser {
    /// Parses one JSON text (RFC 8259, UTF-8, no BOM) with element ranges for slicing.
    public static func parse(_ bytes: [UInt8], options: JSONParseOptions = .init()) throws(JSONError) -> JSONDocument {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) in
            var reader = Reader(buffer, options: options)
            return try reader.parseDocument()
        }
    }

    /// The same over memory the caller owns (e.g. a request buffer), without copying it.
    public static func parse(
        _ buffer: UnsafeRawBufferPointer, options: JSONParseOptions = .init()
    ) throws(JSONError) -> JSONDocument {
        // Bytes may alias any byte-sized type; assuming (not binding) leaves the caller's memory as it is.
        let bytes = UnsafeBufferPointer(
            start: buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), count: buffer.count)
        var reader = Reader(bytes, options: options)
        return try reader.parseDocument()
    }

    /// Just the value, for callers that don't slice.
    public static func parseValue(_ bytes: [UInt8], options: JSONParseOptions = .init()) throws(JSONError) -> JSONValue
    {
        try parse(bytes, options: options).value
    }

    /// Convenience for tests and small texts.
    public static func parseValue(_ text: String, options: JSONParseOptions = .init()) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8), options: options).value
    }
}

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

/// The parser state: one pass over the buffer.
struct Reader {
    let b: UnsafeBufferPointer<UInt8>
    let options: JSONParseOptions
    var i = 0
    /// Reused across strings that need unescaping.
    var scratch: [UInt8] = []
    /// Values parsed so far (against `options.maxValues`).
    var values = 0

    init(_ b: UnsafeBufferPointer<UInt8>, options: JSONParseOptions) {
        self.b = b
        self.options = options
    }

    mutating func parseDocument() throws(JSONError) -> JSONDocument {
        skipWhitespace()
        var document = JSONDocument(value: .null, elementRanges: [], memberElementRanges: [:])
        if i < b.count, b[i] == UInt8(ascii: "[") {
            let (elements, ranges) = try parseArray(depth: 1, recordRanges: true)
            document.value = .array(elements)
            document.elementRanges = ranges
        } else if i < b.count, b[i] == UInt8(ascii: "{") {
            let (object, ranges) = try parseObject(depth: 1, recordMemberArrays: true)
            document.value = .object(object)
            document.memberElementRanges = ranges
        } else {
            document.value = try parseValue(depth: 0)
        }
        skipWhitespace()
        if i < b.count { throw error(at: i, "unexpected \(describe(b[i])) after the JSON value") }
        return document
    }

    @inline(__always) mutating func skipWhitespace() {
        while i < b.count {
            switch b[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    func error(at offset: Int, _ message: String) -> JSONError { JSONError(offset: offset, message: message) }

    func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex2(byte))"
    }

    mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        skipWhitespace()
        guard i < b.count else { throw error(at: i, "unexpected end of input, expected a value") }
        try countValue()
        switch b[i] {
        case quote: return .string(try parseString())
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1, recordMemberArrays: false).0)
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth + 1, recordRanges: false).0)
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error(at: i, "unexpected \(describe(b[i])), expected a value")
        }
    }

    mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONError) -> JSONValue {
        let n = word.utf8CodeUnitCount
        let w = UnsafeBufferPointer(start: word.utf8Start, count: n)
        guard b.count - i >= n, (0..<n).allSatisfy({ b[i + $0] == w[$0] }) else {
            throw error(at: i, "invalid literal, expected '\(word)'")
        }
        i += n
        return value
    }

    mutating func parseNumber() throws(JSONError) -> JSONNumber {
        let start = i
        guard let (end, int64) = JSONNumber.scan(b, from: i) else {
            throw error(at: start, "invalid number")
        }
        guard end - start <= options.maxNumberLength else {
            throw error(at: start, "number longer than \(options.maxNumberLength) characters")
        }
        i = end
        return JSONNumber(
            validatedText: String(decoding: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self),
            int64Value: int64)
    }

    @inline(__always) mutating func countValue() throws(JSONError) {
        values += 1
        if values > options.maxValues { throw error(at: i, "more than \(options.maxValues) values") }
    }

    mutating func enter(_ depth: Int) throws(JSONError) {
        if depth > options.maxDepth { throw error(at: i, "nesting deeper than \(options.maxDepth) levels") }
    }

    /// After a container's element: consumes `,` (false) or the closing byte (true).
    mutating func closes(_ close: UInt8, in container: String) throws(JSONError) -> Bool {
        skipWhitespace()
        guard i < b.count else { throw error(at: i, "unexpected end of input in \(container)") }
        let c = b[i]
        i += 1
        if c == UInt8(ascii: ",") { return false }
        if c == close { return true }
        throw error(
            at: i - 1,
            "unexpected \(describe(c)) in \(container), expected ',' or '\(Character(Unicode.Scalar(close)))'")
    }

    mutating func parseArray(depth: Int, recordRanges: Bool) throws(JSONError) -> ([JSONValue], [Range<Int>]) {
        try enter(depth)
        if recordRanges { try countValue() }
        i += 1  // '['
        var elements: [JSONValue] = []
        var ranges: [Range<Int>] = []
        skipWhitespace()
        if i < b.count, b[i] == UInt8(ascii: "]") {
            i += 1
            return (elements, ranges)
        }
        while true {
            skipWhitespace()
            let start = i
            elements.append(try parseValue(depth: depth))
            if recordRanges { ranges.append(start..<i) }
            if try closes(UInt8(ascii: "]"), in: "an array") { return (elements, ranges) }
        }
    }

    mutating func parseObject(
        depth: Int, recordMemberArrays: Bool
    ) throws(JSONError) -> (JSONObject, [Int: [Range<Int>]]) {
        try enter(depth)
        if recordMemberArrays { try countValue() }
        i += 1  // '{'
        var object = JSONObject()
        var ranges: [Int: [Range<Int>]] = [:]
        skipWhitespace()
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            return (object, ranges)
        }
        while true {
            skipWhitespace()
            guard i < b.count, b[i] == quote else {
                throw error(
                    at: i,
                    i < b.count
                        ? "unexpected \(describe(b[i])), expected a string key" : "unexpected end of input in an object"
                )
            }
            let key = try parseString()
            skipWhitespace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw error(at: i, "expected ':' after an object key") }
            i += 1
            skipWhitespace()
            if recordMemberArrays, i < b.count, b[i] == UInt8(ascii: "[") {
                let (elements, elementRanges) = try parseArray(depth: depth + 1, recordRanges: true)
                ranges[object.members.count] = elementRanges
                object.append(key, .array(elements))
            } else {
                object.append(key, try parseValue(depth: depth))
            }
            if try closes(UInt8(ascii: "}"), in: "an object") { return (object, ranges) }
        }
    }
}

@inline(__always) func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
