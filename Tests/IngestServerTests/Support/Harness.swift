import Foundation
import Gzip
import Postgres
import PushLedgerSupport
import Synchronization
import TestSupport

@testable import IngestServer

/// Collects log lines for assertions.
final class LogCapture: Sendable {
    let lines = Mutex<[String]>([])
    var logger: Logger {
        Logger(component: "serve", minimumLevel: .debug) { [self] line in lines.withLock { $0.append(line) } }
    }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

/// A running server on a free port over a fresh, migrated database, with helpers to talk to it.
final class Harness: Sendable {
    let server: IngestServer
    let store: FaultyStore
    let databaseURL: String
    let log = LogCapture()

    /// `down`: the server starts with the database unreachable. `proxy`: the server reaches
    /// the database through it (the tests' own connections do not).
    init(
        keys: Bool = true, down: Bool = false, proxy: TCPProxy? = nil,
        configure: (inout IngestServerConfig) -> Void = { _ in }
    ) throws {
        let url = try TestDatabase.fresh(prefix: "srv")
        self.databaseURL = url
        if keys { try TestKeys.insert(into: Connection.connect(url: url)) }
        var config = IngestServerConfig()
        config.port = 0
        config.http.threads = 2
        config.writerCount = 2
        config.reconnectInterval = 3_600  // tests trigger probes themselves
        configure(&config)
        store = FaultyStore(PostgresIngestStore(url: proxy?.url(for: url) ?? url, connections: config.writerCount + 1))
        store.state.withLock { $0.down = down }
        server = IngestServer(config: config, store: store, logger: log.logger, version: "test")
        try server.start()
    }

    deinit { server.stop() }

    var port: UInt16 { server.port }

    func connect() throws -> RawHTTPConnection { try RawHTTPConnection(port: port) }

    /// A single number from the database (counts).
    func count(_ sql: SQL) throws -> Int {
        let rows = try Connection.connect(url: databaseURL).query(sql)
        return try rows[0].decode(0, as: Int.self)
    }

    /// Events stored (the de-duplication ledger holds one row per stored event).
    var storedCount: Int { get throws { try count("select count(*)::int8 from event_ids") } }

    /// One request on a new connection.
    func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> RawReply {
        let connection = try connect()
        connection.write(RawRequest.make(method, path, headers: headers, body: body))
        return try connection.readReply(toHead: method == "HEAD")
    }

    func get(_ path: String) throws -> RawReply { try request("GET", path) }

    /// POSTs a body with a key; `gzip` compresses it and says so.
    func post(
        _ path: String, _ body: [UInt8], key: String? = TestKeys.telemetry, type: String = "application/json",
        gzip: Bool = false,
        extra: [(String, String)] = []
    ) throws -> RawReply {
        var headers: [(String, String)] = [("Content-Type", type)]
        if let key { headers.append(("Authorization", "Bearer \(key)")) }
        if gzip { headers.append(("Content-Encoding", "gzip")) }
        return try request("POST", path, headers: headers + extra, body: gzip ? Gzip.compress(body) : body)
    }

    /// Sends only the headers of a POST that announces `contentLength` bytes, and reads the
    /// answer: what the server says before any body byte arrives.
    func announce(_ path: String, key: String, type: String = "application/json", contentLength: Int) throws -> RawReply
    {
        let connection = try connect()
        connection.write(
            "POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Type: \(type)\r\nAuthorization: Bearer \(key)\r\n"
                + "Content-Length: \(contentLength)\r\n\r\n")
        return try connection.readReply()
    }

    /// Closes the store's gate and posts `events` events in the background; returns once a
    /// writer holds that request at the gate (open the gate to let it finish).
    func holdWriter(events: Int = 1) -> Background<RawReply> {
        store.closeGate()
        let held = Background { [self] in try telemetry(Fixtures.telemetry(count: events)) }
        store.waitForWriters(1)
        return held
    }

    func telemetry(_ body: [UInt8], key: String = TestKeys.telemetry) throws -> RawReply {
        try post("/v1/telemetry", body, key: key)
    }

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
