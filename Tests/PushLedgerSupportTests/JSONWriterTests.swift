import PushLedgerSupport
import Testing

@testable import PushLedgerSupport

@Suite struct JSONWriterTests {
    @Test func builderKeepsKeyOrder() {
        let value: JSONValue = ["zeta": 1, "alpha": [true, nil, 2.5], "mid": ["b": "x", "a": -3]]
        #expect(value.jsonText == #"{"zeta":1,"alpha":[true,null,2.5],"mid":{"b":"x","a":-3}}"#)
    }

    @Test func prettyPutsEachMemberOnItsOwnLine() throws {
        let value: JSONValue = ["a": 1, "list": [true, ["x": nil]], "empty": [:], "none": []]
        #expect(
            value.jsonText(pretty: true) == """
                {
                  "a": 1,
                  "list": [
                    true,
                    {
                      "x": null
                    }
                  ],
                  "empty": {},
                  "none": []
                }
                """)
        #expect(JSONValue.string("s").jsonText(pretty: true) == #""s""#)
        #expect(try JSONParser.parseValue(value.jsonText(pretty: true)) == value)
    }

    @Test func stringsAreEscaped() {
        let text = "q\" b\\ / \u{8}\u{C}\n\r\t \u{0}\u{1F} \u{7F} é 😀 \u{2028}"
        #expect(JSONValue.string(text).jsonText == #""q\" b\\ / \b\f\n\r\t \u0000\u001f "# + "\u{7F} é 😀 \u{2028}\"")
        #expect(JSONValue.object(JSONObject([.init(key: "k\"", value: "v")])).jsonText == #"{"k\"":"v"}"#)
    }

    @Test func numbers() throws {
        #expect(JSONValue.double(3.0).jsonText == "3")
        #expect(JSONValue.double(-0.0).jsonText == "0")
        #expect(JSONValue.double(0.1).jsonText == "0.1")
        #expect(JSONValue.double(1e20).jsonText == "1e+20")
        #expect(JSONValue.double(.infinity) == .null)
        #expect(JSONValue.double(.nan) == .null)
        #expect(JSONValue.int(Int.min).jsonText == "-9223372036854775808")
        #expect(JSONNumber(3.0) == JSONNumber(literal: "3"))
        #expect(JSONNumber(literal: "1.0") != JSONNumber(literal: "1"))
        #expect(JSONNumber(literal: "-1.5e-7")?.doubleValue == -1.5e-7)
        #expect(JSONNumber(literal: "1e400")?.doubleValue == .infinity)
        #expect(JSONNumber(literal: "-1e400")?.doubleValue == -.infinity)
        for value in [1e-7, 123.456, -9.87e300, Double.leastNonzeroMagnitude] {
            #expect(JSONValue.double(value).jsonText.utf8.allSatisfy { $0 < 0x80 })
            #expect(try JSONParser.parseValue(JSONValue.double(value).jsonText).numberValue?.doubleValue == value)
        }
    }

    @Test func streamingWriterMatchesTheValueSerializer() {
        var w = JSONWriter()
        w.beginArray()
        w.beginObject()
        w.key("a")
        w.optionalString(nil)
        w.key("b")
        w.beginArray()
        w.endArray()
        w.endObject()
        w.optionalString("s")
        w.bool(false)
        w.int(7)
        w.endArray()
        #expect(w.string == ([["a": nil, "b": []], "s", false, 7] as JSONValue).jsonText)
        #expect(w.string == #"[{"a":null,"b":[]},"s",false,7]"#)
    }

    // MARK: round trip over random values

    func randomString(_ rng: inout SplitMix64) -> String {
        let pools: [ClosedRange<UInt32>] = [
            0x00...0x1F, 0x20...0x7E, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF,
        ]
        let count = Int.random(in: 0...12, using: &rng)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<count {
            let pool = pools[Int.random(in: 0..<pools.count, using: &rng)]
            scalars.append(Unicode.Scalar(UInt32.random(in: pool, using: &rng))!)
        }
        if Bool.random(using: &rng) { scalars.append(contentsOf: "\"\\/".unicodeScalars) }
        return String(scalars)
    }

    func randomNumber(_ rng: inout SplitMix64) -> JSONNumber {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: JSONNumber(Int64.random(in: .min ... .max, using: &rng))
        case 1: JSONNumber(Double.random(in: -1e6...1e6, using: &rng))!
        case 2: JSONNumber(Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &rng)))!
        default: JSONNumber(literal: "-12.50e+0\(Int.random(in: 0...9, using: &rng))")!
        }
    }

    func randomValue(_ rng: inout SplitMix64, depth: Int) -> JSONValue {
        let kind = Int.random(in: 0..<(depth < 4 ? 7 : 5), using: &rng)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(randomNumber(&rng))
        case 3, 4: return .string(randomString(&rng))
        case 5: return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            let members = (0..<Int.random(in: 0...5, using: &rng)).map { _ in
                JSONObject.Member(key: randomString(&rng), value: randomValue(&rng, depth: depth + 1))
            }
            return .object(JSONObject(members))
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func serializeThenParseGivesTheSameValue(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        for _ in 0..<400 {
            let value = randomValue(&rng, depth: 0)
            let bytes = value.serialized()
            let parsed = try JSONParser.parseValue(bytes)
            #expect(parsed == value, "\(value.jsonText)")
            #expect(parsed.serialized() == bytes)
        }
    }

    @Test func randomArraysSliceBackToTheirElements() throws {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<100 {
            let elements = (0..<Int.random(in: 0...8, using: &rng)).map { _ in randomValue(&rng, depth: 1) }
            let bytes = JSONValue.array(elements).serialized()
            let document = try JSONParser.parse(bytes)
            let reparsed = try document.elementRanges.map { range throws(JSONError) in
                try JSONParser.parseValue(Array(bytes[range]))
            }
            #expect(reparsed == elements)
        }
    }
}
