// Compact JSON output with deterministic key order (the order written). Reports and HTTP
// responses are compared byte for byte in tests, so the output must never depend on hashing.

/// Appends JSON to a byte buffer: compact, or `pretty` (one member or element per line, two
/// spaces per level) for people reading reports. Use it directly to stream large outputs, or
/// build a `JSONValue` and call `serialized()` / `jsonText(pretty:)`.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value in the current container needs a leading comma.
    private var needsComma = false
    private let pretty: Bool
    /// Open containers (pretty output indents by it).
    private var depth = 0
    /// The next value follows its key on the same line.
    private var afterKey = false

    public init(reservingCapacity capacity: Int = 0, pretty: Bool = false) {
        bytes.reserveCapacity(capacity)
        self.pretty = pretty
    }

    /// The output as text (always valid UTF-8).
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    // Containers: every begin needs its end; keys and commas are placed by the writer.
    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        depth += 1
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        // needsComma: the container holds something, so its end goes on a line of its own.
        if pretty && needsComma { newline() }
        bytes.append(bracket)
        needsComma = true
    }

    /// Writes an object key; the next write is its value.
    public mutating func key(_ key: String) {
        separate()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        needsComma = false
        afterKey = true
    }

    /// A quoted, escaped string value.
    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    public mutating func int(_ value: Int) { number(JSONNumber(value)) }

    public mutating func number(_ value: JSONNumber) {
        separate()
        bytes.append(contentsOf: value.text.utf8)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    public mutating func null() { raw("null") }

    /// A string, or `null` when nil.
    public mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// An object member with an integer value.
    public mutating func member(_ key: String, _ value: Int) {
        self.key(key)
        int(value)
    }

    /// An object member with a string value (`null` when nil).
    public mutating func member(_ key: String, _ value: String?) {
        self.key(key)
        optionalString(value)
    }

    /// Writes any value.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let n): number(n)
        case .string(let s): string(s)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let object):
            beginObject()
            for member in object.members {
                key(member.key)
                self.value(member.value)
            }
            endObject()
        }
    }

    private mutating func raw(_ literal: StaticString) {
        separate()
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        needsComma = true
    }

    @inline(__always) private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        if pretty && !afterKey && depth > 0 { newline() }
        afterKey = false
    }

    private mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// Quotes and escapes: `"` and `\`, and control characters (short forms where JSON has
    /// them, `\u00XX` otherwise). Everything else is copied as UTF-8, including `/` and DEL.
    private mutating func appendQuoted(_ text: String) { Self.appendQuoted(text, to: &bytes) }

    /// A JSON string literal of `text` appended to `bytes`, escaped as above: for writers that
    /// lay out their own structure (the simulator's event encoders).
    public static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for (index, c) in utf8.enumerated() where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(c)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: "u00".utf8)
                    bytes.append(contentsOf: hex2(c).lowercased().utf8)
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// Compact JSON bytes, keys in member order.
    public func serialized() -> [UInt8] {
        var writer = JSONWriter()
        writer.value(self)
        return writer.bytes
    }

    /// Compact JSON text, keys in member order.
    public var jsonText: String { jsonText(pretty: false) }

    /// JSON text, keys in member order; `pretty` puts each member and element on its own line.
    public func jsonText(pretty: Bool) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.value(self)
        return writer.string
    }
}
