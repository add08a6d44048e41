import Foundation
import Gzip
import PushLedgerCore
import Synchronization

@testable import IngestServer

/// Keys every harness knows.
enum TestKeys {
    static let telemetry = "pl_t_telemetry-key-of-the-shop-app-0123456789"
    static let sends = "pl_s_sends-key-of-the-shop-app-0123456789abc"
    static let revoked = "pl_t_revoked-key-of-the-shop-app-0123456789"
    static let otherApp = "pl_t_telemetry-key-of-the-other-app-01234567"

    static var records: [KeyRecord] {
        [
            KeyRecord(id: "k1", hash: SHA256.hash(telemetry), appID: Fixtures.app, scope: "telemetry", revoked: false),
            KeyRecord(id: "k2", hash: SHA256.hash(sends), appID: Fixtures.app, scope: "sends", revoked: false),
            KeyRecord(id: "k3", hash: SHA256.hash(revoked), appID: Fixtures.app, scope: "telemetry", revoked: true),
            KeyRecord(id: "k4", hash: SHA256.hash(otherApp), appID: Fixtures.otherApp, scope: "telemetry", revoked: false),
        ]
    }
}

/// Collects log lines for assertions.
final class LogCapture: Sendable {
    let lines = Mutex<[String]>([])
    var logger: Logger { Logger(component: "serve", minimumLevel: .debug) { [self] line in lines.withLock { $0.append(line) } } }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

/// A running server on a free port, with helpers to talk to it.
final class Harness: Sendable {
    let server: IngestServer
    let store: any IngestStore
    let log = LogCapture()

    init(store: any IngestStore, configure: (inout IngestServerConfig) -> Void = { _ in }) throws {
        var config = IngestServerConfig()
        config.port = 0
        config.httpThreads = 2
        config.writerCount = 2
        config.reconnectInterval = 3_600  // tests trigger probes themselves
        configure(&config)
        self.store = store
        server = IngestServer(config: config, store: store, logger: log.logger, version: "test")
        try server.start()
    }

    deinit { server.stop() }

    var port: UInt16 { server.port }

    func connect() throws -> RawHTTPConnection { try RawHTTPConnection(port: port) }

    /// One request on a new connection.
    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> RawReply {
        let connection = try connect()
        connection.write(RawRequest.make(method, path, headers: headers, body: body))
        return try connection.readReply(toHead: method == "HEAD")
    }

    func get(_ path: String) throws -> RawReply { try request("GET", path) }

    /// POSTs a body with a key; `gzip` compresses it and says so.
    func post(
        _ path: String, _ body: [UInt8], key: String? = TestKeys.telemetry, type: String = "application/json", gzip: Bool = false,
        extra: [(String, String)] = []
    ) throws -> RawReply {
        var headers: [(String, String)] = [("Content-Type", type)]
        if let key { headers.append(("Authorization", "Bearer \(key)")) }
        if gzip { headers.append(("Content-Encoding", "gzip")) }
        return try request("POST", path, headers: headers + extra, body: gzip ? Gzip.compress(body) : body)
    }

    /// Sends only the headers of a POST that announces `contentLength` bytes, and reads the
    /// answer: what the server says before any body byte arrives.
    func announce(_ path: String, key: String, type: String = "application/json", contentLength: Int) throws -> RawReply {
        let connection = try connect()
        connection.write(
            "POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Type: \(type)\r\nAuthorization: Bearer \(key)\r\n"
                + "Content-Length: \(contentLength)\r\n\r\n")
        return try connection.readReply()
    }

    func telemetry(_ body: [UInt8], key: String = TestKeys.telemetry) throws -> RawReply { try post("/v1/telemetry", body, key: key) }

    func sends(_ body: [UInt8], ndjson: Bool = false) throws -> RawReply {
        try post("/v1/sends", body, key: TestKeys.sends, type: ndjson ? "application/x-ndjson" : "application/json")
    }
}

extension RawReply {
    var accepted: Int? { json?["accepted"] as? Int }
    var duplicates: Int? { json?["duplicates"] as? Int }
    var rejected: [[String: Any]] { json?["rejected"] as? [[String: Any]] ?? [] }
    var errorCode: String? { json?["error"] as? String }
}
