import Foundation
import IngestServer
import PushLedgerCLI

/// `pushledger serve`: the v1 ingest API until SIGTERM/SIGINT (which drain in-flight requests).
enum ServeCommand: Command {
    static let spec = CommandSpec(
        "serve", summary: "Run the v1 HTTP ingest service (POST /v1/telemetry, /v1/sends; /healthz, /readyz, /metrics)",
        discussion: "A 200 is written only after the request's events are committed. SIGTERM or SIGINT stops accepting, finishes in-flight requests and exits 0; a second signal exits at once. Slow clients: a connection that has not sent its request headers within --header-deadline is closed, however busily it trickles; at the connection limit (--connections, minus a sixteenth kept free) the connections waiting longest for headers are closed to let new ones in; --per-address caps one address. Behind a proxy every connection comes from the proxy: raise --per-address above its pool and let the proxy enforce client timeouts.",
        options: [
            .value("listen", help: "IPv4 address and port to listen on", default: "127.0.0.1:8080", environment: "PUSHLEDGER_LISTEN", placeholder: "host:port"),
            .value("threads", type: .integer, help: "HTTP threads", default: "4"),
            .value("writers", type: .integer, help: "Writer threads (one database connection each)", default: "2"),
            .value("queue", type: .integer, help: "Validated requests waiting for a writer before 429", default: "512"),
            .value("batch", type: .integer, help: "Requests committed together in one transaction at most", default: "128"),
            .value("connections", type: .integer, help: "Open connections at most", default: "256"),
            .value("connection-memory", type: .integer, help: "Bytes of libmicrohttpd memory per connection", default: "131072"),
            .value("timeout", type: .integer, help: "Seconds an idle connection stays open", default: "30"),
            .value("upload-deadline", type: .integer, help: "Seconds a request body may take to arrive in all (slow clients are cut off)", default: "60"),
            .value("header-deadline", type: .integer, help: "Seconds a new connection has to send its request headers in all", default: "5"),
            .value("per-address", type: .integer, help: "Open connections from one client address at most", default: "64"),
            .value("max-body", type: .integer, help: "Bytes of a request body as sent", default: "1048576"),
            .value("max-decompressed", type: .integer, help: "Bytes of a body after gzip", default: "8388608"),
            .value("max-events", type: .integer, help: "Events (or sends) per request", default: "2000"),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let config = try configuration(context.command)
        do {
            try IngestServer.run(
                config: config, databaseURL: context.databaseURL, logger: context.logger.named("serve"),
                version: root.version ?? "dev"
            ) { server in
                context.logger.info("listening", ["address": "\(config.host):\(server.port)"])
            }
        } catch {
            throw CommandFailure(message: error.description)
        }
        return 0
    }

    /// Flags → server settings; a bad value is bad usage (64).
    static func configuration(_ command: ParsedCommand) throws -> IngestServerConfig {
        var config = IngestServerConfig()
        let listen = command.string("listen")!
        guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]) else {
            throw CommandFailure(message: "--listen wants HOST:PORT, got '\(listen)'", exitCode: 64)
        }
        config.host = String(listen[..<colon])
        config.port = port
        func positive(_ name: String) throws -> Int {
            let value = command.integer(name)!
            guard value > 0 else { throw CommandFailure(message: "--\(name) must be positive", exitCode: 64) }
            return value
        }
        config.httpThreads = try positive("threads")
        config.writerCount = try positive("writers")
        config.queueCapacity = try positive("queue")
        config.maxUnitsPerBatch = try positive("batch")
        config.connectionLimit = try positive("connections")
        config.connectionMemoryLimit = try positive("connection-memory")
        config.requestTimeoutSeconds = try positive("timeout")
        config.uploadDeadlineSeconds = try positive("upload-deadline")
        config.headerDeadlineSeconds = try positive("header-deadline")
        config.perAddressConnectionLimit = try positive("per-address")
        config.limits.maxBodyBytes = try positive("max-body")
        config.limits.maxDecompressedBytes = try positive("max-decompressed")
        config.limits.maxEventsPerRequest = try positive("max-events")
        return config
    }
}
