// String scanning: a fast path for the common case (no escapes: one validated slice becomes
// one `String`), and a slow path that unescapes into a reused byte buffer. UTF-8 is checked
// here byte by byte so an invalid sequence is reported with its offset (Swift would silently
// repair it).

extension Reader {
    /// Parses the string starting at the opening quote at `i`.
    mutating func parseString() throws(JSONError) -> String {
        let open = i
        i += 1
        let start = i
        while true {
            guard i < b.count else { throw error(at: open, "unterminated string") }
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
                i += 1
                return text
            }
            if c == UInt8(ascii: "\\") { return try parseEscapedString(open: open, start: start) }
            try step(c)
        }
    }

    /// Advances over one unescaped character (one byte, or a whole UTF-8 sequence).
    @inline(__always) mutating func step(_ c: UInt8) throws(JSONError) {
        if c >= 0x20, c < 0x80 {
            i += 1
        } else if c < 0x20 {
            throw error(at: i, "unescaped control character 0x\(hex2(c)) in a string")
        } else {
            try skipUTF8Sequence()
        }
    }

    /// Continues a string that contains escapes; `b[start..<i]` is already checked.
    mutating func parseEscapedString(open: Int, start: Int) throws(JSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        var runStart = start
        while true {
            guard i < b.count else { throw error(at: open, "unterminated string") }
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<i]))
                i += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if c == UInt8(ascii: "\\") {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<i]))
                try unescape()
                runStart = i
            } else {
                try step(c)
            }
        }
    }

    /// Decodes the escape at `i` (a backslash) into `scratch`.
    mutating func unescape() throws(JSONError) {
        let at = i
        guard i + 1 < b.count else { throw error(at: at, "unterminated escape") }
        let e = b[i + 1]
        i += 2
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4(at: at)
            if (0xDC00...0xDFFF).contains(scalar) {
                throw error(at: at, "lone low surrogate \\u\(hex2(UInt8(scalar >> 8)))\(hex2(UInt8(scalar & 0xFF)))")
            }
            if (0xD800...0xDBFF).contains(scalar) {
                guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else {
                    throw error(at: at, "lone high surrogate (not followed by a \\u low surrogate)")
                }
                i += 2
                let low = try hex4(at: i - 2)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error(at: i - 6, "high surrogate followed by a non-low-surrogate escape")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(scalar)
        default:
            throw error(
                at: at,
                "invalid escape \\\(e < 0x80 && e >= 0x20 ? String(Character(Unicode.Scalar(e))) : "0x" + hex2(e))")
        }
    }

    /// Reads four hex digits at `i` (after `\u`).
    mutating func hex4(at escape: Int) throws(JSONError) -> UInt32 {
        guard i + 4 <= b.count else { throw error(at: escape, "truncated \\u escape") }
        var value: UInt32 = 0
        for k in 0..<4 {
            let c = b[i + k]
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - 48
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - 87
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - 55
            default: throw error(at: escape, "invalid \\u escape: expected four hex digits")
            }
            value = value << 4 | UInt32(digit)
        }
        i += 4
        return value
    }

    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Checks one multi-byte UTF-8 sequence at `i` (RFC 3629: no overlongs, no surrogates,
    /// nothing above U+10FFFF) and steps over it.
    mutating func skipUTF8Sequence() throws(JSONError) {
        let lead = b[i]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: throw error(at: i, "invalid UTF-8 (byte 0x\(hex2(lead)))")
        }
        guard i + length <= b.count else { throw error(at: i, "truncated UTF-8 sequence") }
        let second = b[i + 1]
        guard second >= low, second <= high else { throw error(at: i, "invalid UTF-8 sequence") }
        for k in 2..<max(length, 2) where b[i + k] & 0xC0 != 0x80 {
            throw error(at: i, "invalid UTF-8 sequence")
        }
        i += length
    }
}
