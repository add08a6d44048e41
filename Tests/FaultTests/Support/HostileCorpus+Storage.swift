import Foundation
import TestSupport

/// Requests that are valid JSON and pass the HTTP checks, with values storage may not hold:
/// generated from the contract's own vectors (docs/contract/vectors, every request answered
/// 200), by putting each hostile value in every field of every event type, the envelope and
/// the nested channel entries, and by repeating every id and every key inside one request.
/// Sent with the other app's keys, so what they store is theirs alone.
extension HostileCorpus {
    /// Raw JSON texts put in place of a field's value.
    static let hostileValues: [(name: String, json: String)] = [
        ("nul", #""\u0000""#), ("nul_inside", #""ok\u0000ok""#), ("lone_high_surrogate", #""\ud800""#),
        ("lone_low_surrogate", #""x\udc00""#), ("bidi_zero_width", #""\u202e\u200b\u2028""#),
        ("year_0", #""0000-01-01T00:00:00Z""#), ("year_1_plus_23_59", #""0001-01-01T00:00:00+23:59""#),
        ("year_1_minus_23_59", #""0001-01-01T00:00:00-23:59""#), ("year_9999", #""9999-12-31T23:59:59.999999Z""#),
        ("year_9999_minus_23_59", #""9999-12-31T23:59:59-23:59""#), ("year_1", #""0001-01-01T00:00:00Z""#),
        ("huge_integer", "9223372036854775808"), ("huge_negative", "-9223372036854775809"),
        ("huge_exponent", "1e999999"),
        ("tiny_exponent", "1e-400"), ("negative_zero", "-0"), ("long_digits", String(repeating: "9", count: 60)),
        ("nested_63", String(repeating: "[", count: 62) + String(repeating: "]", count: 62)),
        ("nested_objects", String(repeating: "{\"a\":", count: 30) + "1" + String(repeating: "}", count: 30)),
        ("empty_string", #""""#), ("long_string", "\"" + String(repeating: "x", count: 5_000) + "\""),
    ]

    /// The vectors' 200 requests with the placeholders filled (fresh ids each call).
    static func contractTemplates() throws -> [(path: String, key: String, body: Any)] {
        let folder = TestDatabase.repositoryRoot.appendingPathComponent("docs/contract/vectors")
        var templates: [(String, String, Any)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where name.hasSuffix(".json") {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            guard let vector = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                (vector["expect"] as? [String: Any])?["status"] as? Int == 200, let body = vector["body"],
                let path = vector["path"] as? String, let key = vector["key"] as? String
            else { continue }
            templates.append((path, key, body))
        }
        return templates
    }

    /// Every request of the storage corpus.
    func storage() throws -> [HostileRequest] {
        var requests: [HostileRequest] = []
        for (index, template) in try Self.contractTemplates().enumerated() {
            let key = template.key == "sends" ? otherAppSendsKey : otherAppKey
            for path in Self.paths(in: template.body) {
                for value in Self.hostileValues {
                    let text = fill(Self.text(of: template.body, replacing: path, with: value.json), template: index)
                    requests.append(
                        HostileRequest(
                            category: "storage", variant: "\(value.name) at \(path.joined(separator: "."))",
                            bytes: post(Array(text.utf8), path: template.path, key: key), expect: .neverServerError))
                }
                // The same key twice, and the same element (an event, a send, a channel: their ids) twice.
                let twice = fill(Self.text(of: template.body, replacing: path, with: nil), template: index)
                requests.append(
                    HostileRequest(
                        category: "storage", variant: "twice \(path.joined(separator: "."))",
                        bytes: post(Array(twice.utf8), path: template.path, key: key), expect: .neverServerError))
            }
        }
        return requests
    }

    /// Placeholders as the vector runner fills them; the app is the other app.
    func fill(_ text: String, template: Int) -> String {
        var text = text.replacingOccurrences(of: "com.example.shop", with: FaultDatabase.otherApp)
        let now = Date()
        for (placeholder, offset) in [("{{now}}", 0.0), ("{{now-31d}}", -31 * 86_400.0), ("{{now+2d}}", 2 * 86_400.0)] {
            text = text.replacingOccurrences(of: placeholder, with: Fixtures.time(now.addingTimeInterval(offset)))
        }
        var ids: [String: String] = [:]
        while let range = text.range(of: #"\{\{id:[a-z0-9_]+\}\}"#, options: .regularExpression) {
            let name = String(text[range])
            let id = ids[name] ?? UUID().uuidString.lowercased()
            ids[name] = id
            text.replaceSubrange(range, with: id)
        }
        return text
    }

    /// Paths (object keys and array indexes as text) of every value below the root.
    static func paths(in value: Any, prefix: [String] = []) -> [[String]] {
        var found: [[String]] = []
        if let object = value as? [String: Any] {
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                found.append(prefix + [key])
                found += paths(in: member, prefix: prefix + [key])
            }
        } else if let array = value as? [Any] {
            for (index, element) in array.enumerated() {
                found.append(prefix + [String(index)])
                found += paths(in: element, prefix: prefix + [String(index)])
            }
        }
        return found
    }

    /// The JSON text of `root` with the value at `path` replaced by raw `json`; nil `json`
    /// repeats it instead (an object member: the key twice; an array element: the element twice).
    static func text(of root: Any, replacing path: [String], with json: String?) -> String {
        let marker = "@@HOSTILE@@"
        func replaced(_ value: Any, _ path: ArraySlice<String>) -> Any {
            guard let step = path.first else { return marker }
            if var object = value as? [String: Any] {
                object[step] = replaced(object[step]!, path.dropFirst())
                return object
            }
            var array = value as! [Any]
            array[Int(step)!] = replaced(array[Int(step)!], path.dropFirst())
            return array
        }
        let original = value(at: path, in: root)
        let data = try! JSONSerialization.data(
            withJSONObject: replaced(root, path[...]), options: [.sortedKeys, .fragmentsAllowed])
        let text = String(decoding: data, as: UTF8.self)
        let originalText = String(
            decoding: try! JSONSerialization.data(withJSONObject: original, options: [.sortedKeys, .fragmentsAllowed]),
            as: UTF8.self)
        let replacement: String
        if let json {
            replacement = json
        } else if Int(path.last!) != nil {
            replacement = "\(originalText),\(originalText)"
        } else {
            replacement = "\(originalText),\"\(path.last!)\":\(originalText)"
        }
        return text.replacingOccurrences(of: "\"\(marker)\"", with: replacement)
    }

    static func value(at path: [String], in root: Any) -> Any {
        path.reduce(root) { value, step in
            (value as? [String: Any])?[step] ?? (value as! [Any])[Int(step)!]
        }
    }
}
