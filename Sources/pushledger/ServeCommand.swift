import Foundation
import IngestServer
import PushLedgerCLI

/// `pushledger serve`: the v1 ingest API until SIGTERM/SIGINT (which drain in-flight requests).
enum ServeCommand: Command {
    /// The settings' defaults, shown in the help; a flag not given keeps its default.
    private static let defaults = IngestServerConfig()

    static let spec = CommandSpec(
        "serve", summary: "Run the v1 HTTP ingest service (POST /v1/telemetry, /v1/sends; /healthz, /readyz, /metrics)",
        discussion: "A 200 is written only after the request's events are committed. SIGTERM or SIGINT stops accepting, finishes in-flight requests and exits 0; a second signal exits at once. Slow clients: a connection that has not sent its request headers within --header-deadline is closed, however busily it trickles; at the connection limit (--connections, minus a sixteenth kept free) the connections waiting longest for headers are closed to let new ones in; --per-address caps one address. Behind a proxy every connection comes from the proxy: raise --per-address above its pool and let the proxy enforce client timeouts. Fairness between apps: each app waits in its own lane of at most --app-share requests (past it that app gets 429 with Retry-After), writers take the apps in turn, and one app holds at most --app-writers writers at once, so another app's request never waits for a flood's transaction; a per-key rate (keys create/update --rate) limits one key whatever the load. See docs/operations/README.md.",
        options: [
            .value("listen", help: "IPv4 address and port to listen on", default: "\(defaults.host):\(defaults.port)", environment: "PUSHLEDGER_LISTEN", placeholder: "host:port"),
            .value("threads", type: .integer, help: "HTTP threads", default: "\(defaults.httpThreads)"),
            .value("writers", type: .integer, help: "Writer threads (one database connection each)", default: "\(defaults.writerCount)"),
            .value("queue", type: .integer, help: "Validated requests waiting for a writer before 429", default: "\(defaults.queueCapacity)"),
            .value("app-writers", type: .integer, help: "Writers one app may hold at once, the rest kept for other apps (default: writers - 1)"),
            .value("app-share", type: .integer, help: "Validated requests of one app waiting at most; past it that app alone gets 429", default: "\(defaults.appQueueShare)"),
            .value("batch-events", type: .integer, help: "Events committed together in one transaction at most (one larger request goes alone)", default: "\(defaults.maxEventsPerBatch)"),
            .value("batch", type: .integer, help: "Requests committed together in one transaction at most", default: "\(defaults.maxUnitsPerBatch)"),
            .value("connections", type: .integer, help: "Open connections at most", default: "\(defaults.connectionLimit)"),
            .value("connection-memory", type: .integer, help: "Bytes of libmicrohttpd memory per connection", default: "\(defaults.connectionMemoryLimit)"),
            .value("timeout", type: .integer, help: "Seconds an idle connection stays open", default: "\(defaults.requestTimeoutSeconds)"),
            .value("upload-deadline", type: .integer, help: "Seconds a request body may take to arrive in all (slow clients are cut off)", default: "\(defaults.uploadDeadlineSeconds)"),
            .value("header-deadline", type: .integer, help: "Seconds a new connection has to send its request headers in all", default: "\(defaults.headerDeadlineSeconds)"),
            .value("per-address", type: .integer, help: "Open connections from one client address at most", default: "\(defaults.perAddressConnectionLimit)"),
            .value("max-body", type: .integer, help: "Bytes of a request body as sent", default: "\(defaults.limits.maxBodyBytes)"),
            .value("max-decompressed", type: .integer, help: "Bytes of a body after gzip", default: "\(defaults.limits.maxDecompressedBytes)"),
            .value("max-events", type: .integer, help: "Events (or sends) per request", default: "\(defaults.limits.maxEventsPerRequest)"),
            .repeatable("trusted-proxy", help: "Trusted proxy (CIDR) for X-Forwarded-For", environment: "PUSHLEDGER_TRUSTED_PROXIES", placeholder: "cidr"),
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
        let listen = try command.value(String.self, "listen")
        guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]) else {
            throw OptionError("--listen wants HOST:PORT, got '\(listen)'")
        }
        config.host = String(listen[..<colon])
        config.port = port
        config.httpThreads = try command.positive("threads")
        config.writerCount = try command.positive("writers")
        config.queueCapacity = try command.positive("queue")
        config.maxUnitsPerBatch = try command.positive("batch")
        config.appQueueShare = try command.positive("app-share")
        if try command.optional(Int.self, "app-writers") != nil {
            config.appWriterLimit = try command.int("app-writers", in: 1...config.writerCount)
        }
        config.maxEventsPerBatch = try command.positive("batch-events")
        config.connectionLimit = try command.positive("connections")
        config.connectionMemoryLimit = try command.positive("connection-memory")
        config.requestTimeoutSeconds = try command.positive("timeout")
        config.uploadDeadlineSeconds = try command.positive("upload-deadline")
        config.headerDeadlineSeconds = try command.positive("header-deadline")
        config.perAddressConnectionLimit = try command.positive("per-address")
        config.limits.maxBodyBytes = try command.positive("max-body")
        config.limits.maxDecompressedBytes = try command.positive("max-decompressed")
        config.limits.maxEventsPerRequest = try command.positive("max-events")
        do {
            config.trustedProxies = try TrustedProxies(parsing: command.strings("trusted-proxy"))
        } catch {
            throw CommandFailure(message: "--trusted-proxy: \(error.description)", exitCode: 64)
        }
        return config
    }
}
