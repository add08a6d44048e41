import Testing

@testable import PushLedgerSupport

@Suite struct JSONParserTests {
    func parse(_ text: String, options: JSONParseOptions = .init()) throws(JSONError) -> JSONValue {
        try JSONParser.parseValue(text, options: options)
    }

    func parseError(_ bytes: [UInt8], options: JSONParseOptions = .init()) -> JSONError? {
        do {
            _ = try JSONParser.parse(bytes, options: options)
            return nil
        } catch {
            return error
        }
    }

    func parseError(_ text: String, options: JSONParseOptions = .init()) -> JSONError? {
        parseError(Array(text.utf8), options: options)
    }

    @Test func literalsAndStructure() throws {
        #expect(try parse(" null ") == .null)
        #expect(try parse("true") == .bool(true))
        #expect(try parse("\tfalse\r\n") == .bool(false))
        #expect(try parse("[]") == .array([]))
        #expect(try parse("{ }") == .object(JSONObject()))
        #expect(try parse(#"{"b":[1,{"c":null}],"a":"x"}"#) == ["b": [1, ["c": nil]], "a": "x"])
    }

    @Test func objectsKeepOrderAndDuplicates() throws {
        let object = try #require(try parse(#"{"z":1,"a":2,"z":3}"#).objectValue)
        #expect(object.members.map(\.key) == ["z", "a", "z"])
        #expect(object["z"] == 1)
        #expect(object.firstDuplicateKey == "z")
        let many = "{" + (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        #expect(try parse(many).objectValue?.firstDuplicateKey == nil)
        #expect(try parse(String(many.dropLast()) + ",\"k17\":0}").objectValue?.firstDuplicateKey == "k17")
    }

    @Test(arguments: [
        ("0", Int64?.some(0)), ("-0", 0), ("42", 42), ("-17", -17), ("1.5", nil), ("1e3", nil), ("-2.5E-3", nil),
        ("0.0", nil),
        ("9223372036854775807", .max), ("-9223372036854775808", .min), ("9223372036854775808", nil),
        ("-9223372036854775809", nil), ("123456789012345678901234567890", nil),
    ])
    func numbersKeepTheirText(text: String, int64: Int64?) throws {
        let number = try #require(try parse(text).numberValue)
        #expect(number.text == text)
        #expect(number.int64Value == int64)
        #expect(number.doubleValue == Double(text))
    }

    @Test(arguments: [
        "01", "-", "+1", ".5", "1.", "1.e3", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity", "--1", "1_000", "- 1",
    ])
    func invalidNumbers(text: String) {
        #expect(parseError(text) != nil)
        #expect(JSONNumber(literal: text) == nil)
    }

    @Test func numberLengthLimit() throws {
        let limit = JSONParseOptions().maxNumberLength
        #expect(try parse(String(repeating: "9", count: limit)).numberValue?.text.count == limit)
        #expect(
            parseError("[" + String(repeating: "9", count: limit + 1) + "]")
                == JSONError(offset: 1, message: "number longer than 64 characters"))
        #expect(parseError("1.0000001", options: JSONParseOptions(maxNumberLength: 8))?.offset == 0)
    }

    @Test func stringEscapesAndUnicode() throws {
        #expect(try parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try parse(#""caf\u00e9 \u00C9 \u4e2d \ud83d\ude00 \uD83D\uDE00""#) == .string("café É 中 😀 😀"))
        #expect(try parse("\"café 中 😀 \u{10FFFF}\"") == .string("café 中 😀 \u{10FFFF}"))
        #expect(try parse(#""a\u0000b""#) == .string("a\u{0}b"))
        #expect(try parse(#""plain" "#) == .string("plain"))
        #expect(try parse(#""x\ty\u0041z""#).stringValue?.utf8.count == 5)
        #expect(try parse("\"\u{7F}\"") == .string("\u{7F}"))
    }

    @Test(arguments: [
        (#""\ud800""#, 1, "lone high surrogate (not followed by a \\u low surrogate)"),
        (#""\udc00x""#, 1, "lone low surrogate \\uDC00"),
        (#""ab\ud83dx""#, 3, "lone high surrogate (not followed by a \\u low surrogate)"),
        (#""\ud83d\u0041""#, 7, "high surrogate followed by a non-low-surrogate escape"),
        (#""\ud83d\ud83d""#, 7, "high surrogate followed by a non-low-surrogate escape"),
        (#""\x41""#, 1, "invalid escape \\x"),
        (#""\u12G4""#, 1, "invalid \\u escape: expected four hex digits"),
        (#""\u12"#, 1, "truncated \\u escape"),
        (#""abc"#, 0, "unterminated string"),
        ("\"a\\", 2, "unterminated escape"),
        ("\"tab\there\"", 4, "unescaped control character 0x09 in a string"),
        ("\"new\nline\"", 4, "unescaped control character 0x0A in a string"),
        ("[\"a\\n\u{1}\"]", 5, "unescaped control character 0x01 in a string"),
    ])
    func invalidStrings(text: String, offset: Int, message: String) {
        #expect(parseError(text) == JSONError(offset: offset, message: message))
    }

    @Test(
        arguments: [
            ([0x22, 0xFF, 0x22], 1, "invalid UTF-8 (byte 0xFF)"),
            ([0x22, 0x80, 0x22], 1, "invalid UTF-8 (byte 0x80)"),
            ([0x22, 0xC0, 0x80, 0x22], 1, "invalid UTF-8 (byte 0xC0)"),  // overlong NUL
            ([0x22, 0xE0, 0x80, 0x80, 0x22], 1, "invalid UTF-8 sequence"),  // overlong
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1, "invalid UTF-8 sequence"),  // encoded surrogate
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1, "invalid UTF-8 sequence"),  // above U+10FFFF
            ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1, "invalid UTF-8 (byte 0xF5)"),
            ([0x22, 0x61, 0xE2, 0x82, 0x22], 2, "invalid UTF-8 sequence"),  // truncated €
            ([0x22, 0xE2, 0x82], 1, "truncated UTF-8 sequence"),
            ([0x22, 0xC3, 0x28, 0x22], 1, "invalid UTF-8 sequence"),
            ([0xEF, 0xBB, 0xBF, 0x7B, 0x7D], 0, "unexpected byte 0xEF, expected a value"),  // BOM
            ([0x5B, 0xC3, 0xA9, 0x5D], 1, "unexpected byte 0xC3, expected a value"),
        ] as [([UInt8], Int, String)])
    func invalidUTF8(bytes: [UInt8], offset: Int, message: String) {
        #expect(parseError(bytes) == JSONError(offset: offset, message: message))
    }

    @Test(arguments: [
        ("", 0, "unexpected end of input, expected a value"),
        ("   ", 3, "unexpected end of input, expected a value"),
        ("{} x", 3, "unexpected 'x' after the JSON value"),
        ("[1] [2]", 4, "unexpected '[' after the JSON value"),
        ("[1,]", 3, "unexpected ']', expected a value"),
        ("[,1]", 1, "unexpected ',', expected a value"),
        ("[1 2]", 3, "unexpected '2' in an array, expected ',' or ']'"),
        ("[1", 2, "unexpected end of input in an array"),
        (#"{"a"1}"#, 4, "expected ':' after an object key"),
        (#"{"a":1,}"#, 7, "unexpected '}', expected a string key"),
        ("{a:1}", 1, "unexpected 'a', expected a string key"),
        (#"{"a":1"#, 6, "unexpected end of input in an object"),
        (#"{"a":1 "b":2}"#, 7, "unexpected '\"' in an object, expected ',' or '}'"),
        ("tru", 0, "invalid literal, expected 'true'"),
        ("nul", 0, "invalid literal, expected 'null'"),
        ("True", 0, "unexpected 'T', expected a value"),
        ("'a'", 0, "unexpected ''', expected a value"),
        ("[1]\u{0}", 3, "unexpected byte 0x00 after the JSON value"),
    ])
    func invalidStructure(text: String, offset: Int, message: String) {
        #expect(parseError(text) == JSONError(offset: offset, message: message))
        #expect(parseError(text)?.description == "invalid JSON at byte \(offset): \(message)")
    }

    @Test func nestingLimit() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        }
        #expect(try parse(nested(64)) != .null)
        #expect(parseError(nested(65)) == JSONError(offset: 64, message: "nesting deeper than 64 levels"))
        #expect(parseError("{\"a\":" + nested(64) + "}")?.message == "nesting deeper than 64 levels")
        #expect(parseError(nested(3), options: JSONParseOptions(maxDepth: 2))?.offset == 2)
        // Far past the limit: an error, not a stack overflow.
        #expect(parseError(String(repeating: "[{\"a\":", count: 200_000))?.message == "nesting deeper than 64 levels")
    }

    @Test func elementRangesOfTheTopLevelArray() throws {
        let text = " [ 1 , \"a,]\" ,{\"x\":[2, 3]},[ ] ] "
        let document = try JSONParser.parse(Array(text.utf8))
        let slices = document.elementRanges.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) }
        #expect(slices == ["1", "\"a,]\"", "{\"x\":[2, 3]}", "[ ]"])
        #expect(document.memberElementRanges.isEmpty)
    }

    @Test func elementRangesOfTopLevelMembers() throws {
        let text = #"{"n":1,"events":[ {"a":[1,2]} ,"é" ],"empty":[],"other":{"inner":[5]}}"#
        let bytes = Array(text.utf8)
        let document = try JSONParser.parse(bytes)
        let events = try #require(document.elementRanges(ofMember: "events"))
        #expect(events.map { String(decoding: bytes[$0], as: UTF8.self) } == [#"{"a":[1,2]}"#, "\"é\""])
        #expect(document.elementRanges(ofMember: "empty") == [])
        #expect(document.elementRanges(ofMember: "n") == nil)
        #expect(document.elementRanges(ofMember: "other") == nil)
        #expect(document.elementRanges(ofMember: "missing") == nil)
        #expect(document.memberElementRanges.keys.sorted() == [1, 2])
        #expect(document.elementRanges == [])
    }

    @Test func rawBufferEntryPoint() throws {
        let bytes = Array(#"[{"k":"v"}]"#.utf8)
        let document = try bytes.withUnsafeBytes { (buffer) throws(JSONError) in try JSONParser.parse(buffer) }
        #expect(document.value == [["k": "v"]])
        #expect(document.elementRanges == [1..<10])
    }

    @Test func giantStrings() throws {
        let payload = String(repeating: "0123456789abcdé", count: 600_000)  // 9.6 MB
        let value = try parse("[\"" + payload + "\"]")
        #expect(value.arrayValue?.first?.stringValue == payload)
        let escaped = String(repeating: "ab\\n", count: 1_000_000)
        #expect(try parse("\"" + escaped + "\"").stringValue?.utf8.count == 3_000_000)
    }
}
