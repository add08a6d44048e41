import Foundation
import TestSupport
import Testing

@testable import IngestServer

/// docs/openapi.yaml and the server agree: every documented (path, method, status) is produced
/// by a real request, and every status the server is tested to produce is documented.
@Suite("OpenAPI document")
struct OpenAPITests {
    static let documentURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml")

    /// `METHOD /path status` for every response under `paths:` (the file keeps the usual
    /// two-space layout: path, method, `responses:`, status).
    static func documentedResponses() throws -> Set<String> {
        let lines = try String(contentsOf: documentURL, encoding: .utf8).components(separatedBy: "\n")
        var found: Set<String> = []
        var inPaths = false
        var path = "", method = "", inResponses = false
        for line in lines {
            let indent = line.prefix { $0 == " " }.count
            let text = line.trimmingCharacters(in: .whitespaces)
            if indent == 0 && !text.isEmpty { inPaths = text == "paths:" }
            guard inPaths, text.hasSuffix(":") else { continue }
            let key = String(text.dropLast()).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            switch indent {
            case 2: path = key
            case 4:
                method = key.uppercased()
                inResponses = false
            case 6: inResponses = key == "responses"
            case 8 where inResponses && Int(key) != nil: found.insert("\(method) \(path) \(key)")
            default: break
            }
        }
        return found
    }

    @Test func documentIsOpenAPI31WithTheContractPaths() throws {
        let text = try String(contentsOf: Self.documentURL, encoding: .utf8)
        #expect(text.hasPrefix("openapi: 3.1.0\n"))
        let paths = Set(try Self.documentedResponses().map { $0.split(separator: " ")[1] })
        #expect(paths == Set(Route.allCases.map { Substring($0.rawValue) }))
    }

    @Test func everyDocumentedStatusIsReachable() throws {
        let documented = try Self.documentedResponses()
        var scenarios: [String: (Harness, FaultyStore) throws -> RawReply] = [
            "GET /healthz 200": { harness, _ in try harness.get("/healthz") },
            "GET /readyz 200": { harness, _ in try harness.get("/readyz") },
            "GET /readyz 503": { harness, store in
                store.state.withLock { $0.down = true }
                harness.server.refreshKeys()
                return try harness.get("/readyz")
            },
            "GET /metrics 200": { harness, _ in try harness.get("/metrics") },
        ]
        func feed(_ harness: Harness, _ query: String = "", key: String? = TestKeys.sends) throws -> RawReply {
            try harness.request(
                "GET", "/v1/tokens/invalid\(query)", headers: key.map { [("Authorization", "Bearer \($0)")] } ?? [])
        }
        scenarios["GET /v1/tokens/invalid 200"] = { harness, _ in try feed(harness) }
        scenarios["GET /v1/tokens/invalid 400"] = { harness, _ in try feed(harness, "?limit=0") }
        scenarios["GET /v1/tokens/invalid 401"] = { harness, _ in try feed(harness, key: nil) }
        scenarios["GET /v1/tokens/invalid 403"] = { harness, _ in try feed(harness, key: TestKeys.telemetry) }
        scenarios["GET /v1/tokens/invalid 500"] = { harness, store in
            store.state.withLock { $0.failing = true }
            return try feed(harness)
        }
        scenarios["GET /v1/tokens/invalid 503"] = { harness, store in
            store.state.withLock { $0.down = true }
            return try feed(harness)
        }
        for (path, key, body) in [
            ("/v1/telemetry", TestKeys.telemetry, { Fixtures.telemetry(count: 2) }),
            ("/v1/sends", TestKeys.sends, { Fixtures.sends([Fixtures.send()]) }),
        ] as [(String, String, () -> [UInt8])] {
            let wrongKey = key == TestKeys.telemetry ? TestKeys.sends : TestKeys.telemetry
            scenarios["POST \(path) 200"] = { harness, _ in try harness.post(path, body(), key: key) }
            scenarios["POST \(path) 400"] = { harness, _ in try harness.post(path, Array("[1,".utf8), key: key) }
            scenarios["POST \(path) 401"] = { harness, _ in try harness.post(path, body(), key: nil) }
            scenarios["POST \(path) 403"] = { harness, _ in try harness.post(path, body(), key: wrongKey) }
            scenarios["POST \(path) 413"] = { harness, _ in
                try harness.announce(path, key: key, contentLength: (1 << 20) + 1)
            }
            scenarios["POST \(path) 415"] = { harness, _ in try harness.post(path, body(), key: key, type: "text/csv") }
            scenarios["POST \(path) 429"] = { harness, store in
                try Self.saturate(harness, store) { try harness.post(path, body(), key: key) }
            }
            scenarios["POST \(path) 500"] = { harness, store in
                store.state.withLock { $0.failing = true }
                return try harness.post(path, body(), key: key)
            }
            scenarios["POST \(path) 503"] = { harness, store in
                store.state.withLock { $0.down = true }
                return try harness.post(path, body(), key: key)
            }
        }
        #expect(
            Set(scenarios.keys) == documented,
            """
            undocumented: \(Set(scenarios.keys).subtracting(documented)), untested: \
            \(documented.subtracting(scenarios.keys))
            """
        )
        for name in documented.sorted() {
            guard let scenario = scenarios[name] else { continue }
            let harness = try Harness { config in
                config.queueCapacity = 1
                config.writerCount = 1
                config.maxUnitsPerBatch = 1
            }
            let reply = try scenario(harness, harness.store)
            #expect(reply.status == Int(name.split(separator: " ")[2]), "\(name): got \(reply.status) \(reply.text)")
        }
    }

    /// Holds the only writer and fills the one-slot queue, runs `request`, then lets them go.
    static func saturate(_ harness: Harness, _ store: FaultyStore, _ request: () throws -> RawReply) throws -> RawReply
    {
        let held = harness.holdWriter()
        let queued = Background { try harness.telemetry(Fixtures.telemetry(count: 1)) }
        waitUntil { harness.server.queueDepth == 1 }
        let reply = try request()
        store.openGate()
        _ = try held.value()
        _ = try queued.value()
        return reply
    }
}
