import Foundation
import Gzip
import TestSupport

/// One generated hostile request and what the server may answer to it.
struct HostileRequest: Sendable {
    enum Delivery: Sendable {
        /// All bytes at once, then read the answer.
        case whole
        /// Only the first `headBytes` (the head); the server must answer from it.
        case headFirst(headBytes: Int)
        /// One byte every `intervalMs`, at most `bytes` of them, then silence.
        case trickle(bytes: Int, intervalMs: Int)
    }

    enum Expectation: Sendable {
        /// A 4xx.
        case refused
        /// A 4xx, or a 200 that accepted none of the events (each is listed in `rejected`).
        case nothingAccepted
        /// A slow client: the server closes the connection (its timeout) or answers 408.
        case closedByServer
        /// Not HTTP at all (no method, target and version): a 4xx or the connection closed.
        case refusedOrClosed
        /// Anything but a 5xx: values that may be stored or refused, as long as they are answered.
        case neverServerError
    }

    var category: String
    /// Which variant of the category (in failure messages).
    var variant = ""
    var bytes: [UInt8]
    var delivery: Delivery = .whole
    var expect: Expectation
}

/// The hostile requests, generated from the variant index (deterministic, no randomness):
/// each category cycles through its variants.
struct HostileCorpus {
    let telemetryKey: String
    let sendsKey: String
    let otherAppKey: String
    let revokedKey: String
    let limits: (maxBody: Int, maxEvents: Int)
    /// A sends key of the other app (the storage corpus posts as that app).
    var otherAppSendsKey = ""
    /// gzip of 64 MiB of zeros (~64 KiB): decompresses far past the 8 MiB limit.
    let bomb = Gzip.compress([UInt8](repeating: 0, count: 64 << 20), level: 9)

    /// Every category with its count: ≥ 10,000 requests in all.
    func all() -> [HostileRequest] {
        let generators: [(Int, (Int) -> HostileRequest)] = [
            (2_000, malformedJSON), (1_000, invalidUTF8), (1_200, wrongTypes), (800, hugeNumbers), (400, deepNesting),
            (200, giantStrings), (1_400, badIDsAndTimes), (1_000, gzip), (700, contentTypes), (200, oversize),
            (800, httpGarbage), (600, keys),
        ]
        return generators.flatMap { count, make in (0..<count).map(make) }
    }

    /// Slow clients: heads or bodies trickled, then silence, or trickled without end.
    func slowClients(_ count: Int) -> [HostileRequest] {
        (0..<count).map { i in
            let request = post(telemetry(events: [exposure()]))
            switch i % 3 {
            case 0:
                return HostileRequest(
                    category: "slow_head", bytes: request, delivery: .trickle(bytes: 40, intervalMs: 20),
                    expect: .closedByServer)
            case 1:
                return HostileRequest(
                    category: "slow_body_stall", bytes: request,
                    delivery: .trickle(bytes: request.count - 10, intervalMs: 0), expect: .closedByServer)
            default:
                let big = post(telemetry(events: Array(repeating: exposure(), count: 40)))
                return HostileRequest(
                    category: "slow_body_endless", bytes: big, delivery: .trickle(bytes: big.count, intervalMs: 100),
                    expect: .closedByServer)
            }
        }
    }

    // MARK: Categories

    func malformedJSON(_ i: Int) -> HostileRequest {
        let body = Array(telemetry(events: [exposure(), exposure()]).utf8)
        let broken: [UInt8]
        switch i % 4 {
        case 0: broken = Array(body.prefix(i % body.count))  // a strict prefix is never a whole object
        case 1: broken = body + Array(" trailing".utf8)
        case 2: broken = Array(body.prefix(1 + i % (body.count - 1))) + Array("}]}\"".utf8.prefix(i % 4))
        default:
            broken = Array(
                [
                    "", "null", "[]", "\"text\"", "42", "{", "{\"events\":", "{,}", "{'app_id': 1}", "\u{FEFF}{}",
                    "{\"app_id\":\"raw\u{0}nul\"}",
                ][i % 11].utf8)
        }
        let variant = broken.contains(0) ? "raw_nul" : ""
        return HostileRequest(category: "malformed_json", variant: variant, bytes: post(broken), expect: .refused)
    }

    func invalidUTF8(_ i: Int) -> HostileRequest {
        let sequences: [[UInt8]] = [
            [0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xE2, 0x82],
            [0xF4, 0x90, 0x80, 0x80],
        ]
        let bad = sequences[i % sequences.count]
        let marker = Array("MARK".utf8)
        let text =
            i % 2 == 0
            ? telemetry(events: [exposure(experiment: "\"MARK\"")])
            : telemetry(appVersion: "\"MARK\"", events: [exposure()])
        var body = Array(text.utf8)
        if let range = body.firstRange(of: marker) { body.replaceSubrange(range, with: bad) }
        return HostileRequest(category: "invalid_utf8", bytes: post(body), expect: .nothingAccepted)
    }

    func wrongTypes(_ i: Int) -> HostileRequest {
        // Each field with values of the wrong JSON type (null only where the field is required).
        let notString = ["5", "[]", "{}", "true", "-1", "[\"android\"]"]
        let envelope: [(String, [String])] = [
            ("app_id", notString + ["null", "\"\""]), ("installation_id", notString + ["null", "\"\""]),
            ("platform", notString + ["null", "\"\"", "\"windows\""]), ("sent_at", notString + ["\"\""]),
            ("app_version", notString),
            ("sdk_int", ["\"34\"", "[]", "{}", "true", "\"\"", "34.5"]),
            ("events", ["5", "{}", "true", "null", "\"\"", "[5]", "[[]]"]),
        ]
        let event: [(String, [String])] = [
            ("event_id", notString + ["null"]), ("type", notString + ["null", "\"\""]), ("at", notString + ["null"]),
            ("experiment", notString + ["null"]), ("variant", notString + ["null"]),
        ]
        let fields = i % 2 == 0 ? envelope : event
        let (field, values) = fields[(i / 2) % fields.count]
        let value = values[(i / 2 / fields.count) % values.count]
        let body =
            i % 2 == 0
            ? telemetry(events: [exposure()]).replacingField(field, with: value)
            : telemetry(events: [exposure().replacingField(field, with: value)])
        return HostileRequest(
            category: "wrong_types", variant: "\(i % 2 == 0 ? "" : "event ")\(field)=\(value)",
            bytes: post(Array(body.utf8)),
            expect: .nothingAccepted)
    }

    func hugeNumbers(_ i: Int) -> HostileRequest {
        let numbers = [
            "1e999999", "123456789012345678901234567890123", "-1e308", "1.5", String(repeating: "9", count: 5_000),
            "-7", "1E400", "0x10",
        ]
        let number = numbers[i % numbers.count]
        if i % 2 == 0 {
            let body = telemetry(events: [exposure()]).replacingField("sdk_int", with: number)
            return HostileRequest(
                category: "huge_numbers", variant: "sdk_int=\(number.prefix(20))", bytes: post(Array(body.utf8)),
                expect: .nothingAccepted)
        }
        let send = sendJSON().replacingField(i % 4 == 1 ? "status" : "priority", with: number)
        return HostileRequest(
            category: "huge_numbers", variant: "send \(i % 4 == 1 ? "status" : "priority")=\(number.prefix(20))",
            bytes: post(Array("{\"sends\":[\(send)]}".utf8), path: "/v1/sends", key: sendsKey), expect: .nothingAccepted
        )
    }

    func deepNesting(_ i: Int) -> HostileRequest {
        let depth = [65, 100, 1_000, 10_000, 100_000][i % 5]
        let open = i % 2 == 0 ? "[" : "{\"a\":"
        let nested = String(repeating: open, count: depth)
        let body = i % 4 < 2 ? nested : telemetry(events: [exposure()]).replacingField("os_version", with: nested + "1")
        return HostileRequest(category: "deep_nesting", bytes: post(Array(body.utf8)), expect: .refused)
    }

    func giantStrings(_ i: Int) -> HostileRequest {
        let size = [40_000, 200_000, 1_000_000, 33_000][i % 4]
        let giant = "\"" + String(repeating: i % 3 == 0 ? "\\u0041" : "x", count: i % 3 == 0 ? size / 6 : size) + "\""
        let body =
            i % 2 == 0
            ? telemetry(events: [exposure(experiment: giant)])
            : telemetry(events: [exposure()]).replacingField("app_version", with: giant)
        let bytes = post(Array(body.utf8))
        // Over the body limit the head alone is answered (413); the rest never goes out.
        if body.utf8.count > limits.maxBody {
            return HostileRequest(
                category: "giant_strings", bytes: bytes, delivery: .headFirst(headBytes: bytes.count - body.utf8.count),
                expect: .refused)
        }
        return HostileRequest(category: "giant_strings", bytes: bytes, expect: .nothingAccepted)
    }

    func badIDsAndTimes(_ i: Int) -> HostileRequest {
        let ids = [
            "\"not-a-uuid\"", "\"\"", "\"00000000-0000-0000-0000-00000000000g\"",
            "\"{7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a21}\"", "\"7f1c6a0e3c554c0e9d551b7a3f0f9a21\"",
            "\"7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a21 \"",
        ]
        let times = [
            "\"2026-13-45T25:61:61Z\"", "\"yesterday\"", "\"2026-11-30 10:00:00\"", "\"+275760-09-13T00:00:00Z\"",
            "\"1970-01-01T00:00:00Z\"", "\"2999-01-01T00:00:00Z\"", "\"2026-11-30T10:00:00\"",
            "\"2026-02-30T10:00:00Z\"", "\"\"",
        ]
        switch i % 4 {
        case 0:
            return HostileRequest(
                category: "bad_ids_times",
                bytes: post(Array(telemetry(events: [exposure(id: ids[i / 4 % ids.count])]).utf8)),
                expect: .nothingAccepted)
        case 1:
            return HostileRequest(
                category: "bad_ids_times",
                bytes: post(Array(telemetry(events: [exposure(at: times[i / 4 % times.count])]).utf8)),
                expect: .nothingAccepted)
        case 2:
            return HostileRequest(
                category: "bad_ids_times",
                bytes: post(Array(telemetry(installation: ids[i / 4 % ids.count], events: [exposure()]).utf8)),
                expect: .refused)
        default:
            let send = sendJSON().replacingField(
                i % 8 == 3 ? "sent_at" : "event_id",
                with: i % 8 == 3 ? times[i / 8 % times.count] : ids[i / 8 % ids.count])
            return HostileRequest(
                category: "bad_ids_times",
                bytes: post(Array((send + "\n").utf8), path: "/v1/sends", key: sendsKey, type: "application/x-ndjson"),
                expect: .nothingAccepted)
        }
    }

    func gzip(_ i: Int) -> HostileRequest {
        let valid = Gzip.compress(Array(telemetry(events: [exposure()]).utf8))
        let body: [UInt8]
        switch i % 5 {
        case 0: body = Array(valid.prefix(1 + i % (valid.count - 9)))  // truncated before the trailer
        case 1: body = Array((0..<(64 + i % 512)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) })
        case 2: body = bomb
        case 3: body = Gzip.compress(Array("{\"app_id\": [".utf8))
        default: body = Gzip.compress(valid)  // gzip inside gzip: the inside is not JSON
        }
        return HostileRequest(category: "gzip", bytes: post(body, encoding: "gzip"), expect: .refused)
    }

    func contentTypes(_ i: Int) -> HostileRequest {
        let body = Array(telemetry(events: [exposure()]).utf8)
        let types: [String?] = [
            nil, "text/plain", "application/xml", "", "multipart/form-data; boundary=x", "application/json-seq",
            "application/x-ndjson", "application/jsonx", "*/*",
        ]
        if i % 3 == 2 {
            let encodings = ["br", "deflate", "compress", "gzip, br", "zstd", "identity;q=0"]
            return HostileRequest(
                category: "content_types", bytes: post(body, encoding: encodings[i / 3 % encodings.count]),
                expect: .refused)
        }
        return HostileRequest(
            category: "content_types", bytes: post(body, type: types[i % types.count]), expect: .refused)
    }

    func oversize(_ i: Int) -> HostileRequest {
        switch i % 4 {
        case 0, 1:
            let body = [UInt8](repeating: 0x20, count: limits.maxBody + 1 + i * 997)
            let bytes = post(body)
            return HostileRequest(
                category: "oversize", bytes: bytes, delivery: .headFirst(headBytes: bytes.count - body.count),
                expect: .refused)
        case 2:
            // Chunked, so no Content-Length announces it: the server counts while reading.
            let body = Array(repeating: UInt8(ascii: " "), count: limits.maxBody + limits.maxBody / 2)
            let head = RawRequest.chunkedHead(
                "/v1/telemetry", headers: headers(key: telemetryKey, type: "application/json"))
            return HostileRequest(
                category: "oversize", bytes: head + RawRequest.chunk(body) + RawRequest.lastChunk, expect: .refused)
        default:
            let events = Array(repeating: exposure(), count: limits.maxEvents + 1)
            return HostileRequest(
                category: "oversize", bytes: post(Array(telemetry(events: events).utf8)), expect: .refused)
        }
    }

    func httpGarbage(_ i: Int) -> HostileRequest {
        let body = Array(telemetry(events: [exposure()]).utf8)
        let requests: [[UInt8]] = [
            RawRequest.make(
                ["PUT", "DELETE", "PATCH", "GET"][i % 4], "/v1/telemetry",
                headers: headers(key: telemetryKey, type: "application/json"), body: body),
            RawRequest.make(
                "POST", ["/v1/telemetry/", "/v2/telemetry", "/", "/v1/../etc/passwd", "/v1/telemetry%00"][i % 5],
                headers: headers(key: telemetryKey, type: "application/json"), body: body),
            Array("GARBAGE\r\n\r\n".utf8),
            Array("POST /v1/telemetry HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n".utf8),
            Array("POST /v1/telemetry HTTP/1.1\r\nHost x\r\nno colon here\r\n\r\n".utf8),
            Array(
                "POST /v1/telemetry HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n"
                    .utf8),
            Array("POST /v1/telemetry HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n12345".utf8),
            Array(
                "POST /v1/telemetry HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nxx\r\n0\r\n\r\n".utf8
            ),
        ]
        return HostileRequest(
            category: "http_garbage", variant: "\(i % requests.count)", bytes: requests[i % requests.count],
            expect: i % requests.count == 2 ? .refusedOrClosed : .refused)
    }

    func keys(_ i: Int) -> HostileRequest {
        let body = Array(telemetry(events: [exposure()]).utf8)
        let authorizations: [String?] = [
            nil, "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer pl_t_unknown-\(i)", "bearer \(revokedKey)",
            "Bearer \(sendsKey)", "Bearer \(otherAppKey)", "Bearer \(telemetryKey)x", "Bearer ' or 1=1 --",
        ]
        let authorization = authorizations[i % authorizations.count]
        var list: [(String, String)] = [("Content-Type", "application/json")]
        if let authorization { list.append(("Authorization", authorization)) }
        return HostileRequest(
            category: "keys", bytes: RawRequest.make("POST", "/v1/telemetry", headers: list, body: body),
            expect: .refused)
    }

    // MARK: Bodies as text (so anything can be put in any field)

    func telemetry(
        installation: String = quoted(UUID().uuidString.lowercased()), appVersion: String = "\"5.2.0\"",
        events: [String]
    ) -> String {
        #"{"app_id":"\#(FaultDatabase.app)","installation_id":\#(installation),"platform":"android","#
            + #""app_version":\#(appVersion),"#
            + #""os_version":"14","sdk_int":34,"sent_at":"\#(Fixtures.time())","#
            + #""events":[\#(events.joined(separator: ","))]}"#
    }

    func exposure(
        id: String = quoted(UUID().uuidString.lowercased()), at: String = quoted(Fixtures.time()),
        experiment: String = "\"push_prompt_timing\""
    ) -> String {
        #"{"event_id":\#(id),"type":"experiment_exposure","at":\#(at),"experiment":\#(experiment),"#
            + #""variant":"first_screen"}"#
    }

    func sendJSON() -> String {
        #"{"event_id":"\#(UUID().uuidString.lowercased())","notification_id":"\#(UUID().uuidString.lowercased())","#
            + #""app_id":"\#(FaultDatabase.app)","#
            + #""provider":"fcm","token":"fcm-token-1","channel":"orders","sent_at":"\#(Fixtures.time())","#
            + #""status":200,"priority":10}"#
    }

    func headers(key: String?, type: String?, encoding: String? = nil) -> [(String, String)] {
        var list: [(String, String)] = []
        if let type { list.append(("Content-Type", type)) }
        if let encoding { list.append(("Content-Encoding", encoding)) }
        if let key { list.append(("Authorization", "Bearer \(key)")) }
        return list
    }

    func post(
        _ body: [UInt8], path: String = "/v1/telemetry", key: String? = nil, type: String? = "application/json",
        encoding: String? = nil
    ) -> [UInt8] {
        RawRequest.make(
            "POST", path, headers: headers(key: key ?? telemetryKey, type: type, encoding: encoding), body: body)
    }

    func post(_ text: String) -> [UInt8] { post(Array(text.utf8)) }
}

func quoted(_ text: String) -> String { "\"\(text)\"" }

extension String {
    /// The JSON text with the value of the first `"field":` (a string or number) replaced by raw `value`.
    func replacingField(_ field: String, with value: String) -> String {
        guard let key = range(of: "\"\(field)\":") else { return self }
        var end = key.upperBound
        if self[end] == "\"" {
            end = index(after: end)
            while self[end] != "\"" { end = index(after: end) }
            end = index(after: end)
        } else {
            // A number, or an array/object (the fixtures' strings hold no brackets).
            var depth = 0
            while depth > 0 || (self[end] != "," && self[end] != "}") {
                if self[end] == "[" || self[end] == "{" { depth += 1 }
                if self[end] == "]" || self[end] == "}" { depth -= 1 }
                end = index(after: end)
            }
        }
        return replacingCharacters(in: key.upperBound..<end, with: value)
    }
}
