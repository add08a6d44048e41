import Foundation
import IngestServer
import PushLedgerCLI

/// `pushledger serve`: the v1 ingest API until SIGTERM/SIGINT (which drain in-flight requests).
enum ServeCommand: Command {
    /// The settings' defaults, shown in the help; a flag not given keeps its default.
    private static let defaults = IngestServerConfig()

    static let spec = CommandSpec(
        "serve", summary: "Run the v1 HTTP ingest service (POST /v1/telemetry, /v1/sends; /healthz, /readyz, /metrics)",
        discussion: "A 200 is written only after the request's events are committed. A writer commits the requests waiting for it in one transaction (up to --batch); while one of an app's transactions is in progress, the next starts once as many of that app's requests wait, or they fill a batch, so a busy app commits in fewer, larger transactions. SIGTERM or SIGINT stops accepting, finishes in-flight requests and exits 0; a second signal exits at once. Slow clients: a connection that has not sent its request headers within --header-deadline is closed, however busily it trickles; a body not complete within --upload-deadline of its headers is cut off by a timer; at the connection limit (--connections, minus a sixteenth kept free) the connections waiting longest for headers, then the uploads in progress longest, are closed to let new ones in; --per-address caps one address's connections and --per-address-uploads its bodies arriving at once (429 past it). Behind a proxy every connection comes from the proxy: raise --per-address above its pool and let the proxy enforce client timeouts. HTTPS: --tls-cert and --tls-key (PEM, both or neither) serve TLS 1.2 and 1.3 only; SIGHUP reads both files again and new connections get the new certificate while open ones finish on the old (a file that cannot be used keeps the old one and logs an error); SIGHUP also reloads the key table. --admin-listen moves /metrics, /healthz and /readyz to a private plain-HTTP address; the public listener then answers 404 for them. Fairness between apps: each app waits in its own lane of at most --app-share requests (past it that app gets 429 with Retry-After), writers take the apps in turn, and one app holds at most --app-writers writers at once while another app posted within 10 s, so another app's request never waits for a flood's transaction; a per-key rate (keys create/update --rate) limits one key whatever the load. Shards by app: with --directory-url (PUSHLEDGER_DIRECTORY_URL) keys and the shard map come from the directory database and each app's events go to its shard alone; a shard that does not answer fails its own apps' requests (503) alone. See docs/operations/README.md and docs/operations/scaling.md.",
        options: [
            .value("listen", help: "IPv4 address and port to listen on", default: "\(defaults.host):\(defaults.port)", environment: "PUSHLEDGER_LISTEN", placeholder: "host:port"),
            .value("tls-cert", help: "PEM certificate chain for HTTPS, server first (needs --tls-key)", environment: "PUSHLEDGER_TLS_CERT", placeholder: "file"),
            .value("tls-key", help: "PEM private key (unencrypted) of --tls-cert", environment: "PUSHLEDGER_TLS_KEY", placeholder: "file"),
            .value("admin-listen", help: "Serve /metrics, /healthz, /readyz here, plain HTTP, not on --listen", environment: "PUSHLEDGER_ADMIN_LISTEN", placeholder: "host:port"),
            .value("threads", type: .integer, help: "HTTP threads", default: "\(defaults.httpThreads)"),
            .value("validators", type: .integer, help: "Threads that decode and validate bodies, taking the apps in turn", default: "\(defaults.validatorCount)"),
            .value("feed-reads", type: .integer, help: "Invalid-token feed reads at once (each with a database connection of its own)", default: "\(defaults.feedConcurrency)"),
            .value("writers", type: .integer, help: "Writer threads (one database connection each)", default: "\(defaults.writerCount)"),
            .value("queue", type: .integer, help: "Validated requests waiting for a writer before 429", default: "\(defaults.queueCapacity)"),
            .value("queue-mib", type: .integer, help: "MiB of decoded bodies the waiting requests hold at most before 429 (an app's share in proportion)", default: "\(defaults.queueBytes >> 20)"),
            .value("app-writers", type: .integer, help: "Writers one app may hold at once, the rest kept for other apps (default: writers - 1; an app alone uses all)"),
            .value("app-share", type: .integer, help: "Validated requests of one app waiting at most; past it that app alone gets 429", default: "\(defaults.appQueueShare)"),
            .value("batch-events", type: .integer, help: "Events committed together in one transaction at most (one larger request goes alone)", default: "\(defaults.maxEventsPerBatch)"),
            .value("batch", type: .integer, help: "Requests committed together in one transaction at most", default: "\(defaults.maxUnitsPerBatch)"),
            .value("connections", type: .integer, help: "Open connections at most", default: "\(defaults.connectionLimit)"),
            .value("connection-memory", type: .integer, help: "Bytes of libmicrohttpd memory per connection", default: "\(defaults.connectionMemoryLimit)"),
            .value("timeout", type: .integer, help: "Seconds an idle connection stays open", default: "\(defaults.requestTimeoutSeconds)"),
            .value("upload-deadline", type: .integer, help: "Seconds a request body may take to arrive in all (slow clients are cut off)", default: "\(defaults.uploadDeadlineSeconds)"),
            .value("header-deadline", type: .integer, help: "Seconds a new connection has to send its request headers in all", default: "\(defaults.headerDeadlineSeconds)"),
            .value("per-address", type: .integer, help: "Open connections from one client address at most", default: "\(defaults.perAddressConnectionLimit)"),
            .value("per-address-uploads", type: .integer, help: "Request bodies arriving at once from one client address at most (429 past it)", default: "\(defaults.perAddressUploadLimit)"),
            .value("max-body", type: .integer, help: "Bytes of a request body as sent", default: "\(defaults.limits.maxBodyBytes)"),
            .value("max-decompressed", type: .integer, help: "Bytes of a body after gzip", default: "\(defaults.limits.maxDecompressedBytes)"),
            .value("max-events", type: .integer, help: "Events (or sends) per request", default: "\(defaults.limits.maxEventsPerRequest)"),
            .value("ready-commit-bound", type: .integer, help: "Seconds a probe commit may wait (e.g. for the synchronous standby) before /readyz answers 503", default: "\(Int(defaults.commitBound))"),
            .repeatable("trusted-proxy", help: "Trusted proxy (CIDR) for X-Forwarded-For", environment: "PUSHLEDGER_TRUSTED_PROXIES", placeholder: "cidr"),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let config = try configuration(context.command)
        let started: (IngestServer) -> Void = { server in context.logger.info("listening", ["address": "\(config.host):\(server.port)"]) }
        do {
            if let directory = context.directoryURL {
                try IngestServer.run(
                    config: config, directoryURL: directory, logger: context.logger.named("serve"), version: root.version ?? "dev",
                    started: started)
            } else {
                try IngestServer.run(
                    config: config, databaseURL: context.databaseURL, logger: context.logger.named("serve"), version: root.version ?? "dev",
                    started: started)
            }
        } catch {
            throw CommandFailure(message: error.description)
        }
        return 0
    }

    /// Flags → server settings; a bad value, or a TLS file that cannot be used, is bad usage
    /// (64) and nothing is started.
    static func configuration(_ command: ParsedCommand) throws -> IngestServerConfig {
        var config = IngestServerConfig()
        let listen = try address(try command.value(String.self, "listen"), flag: "listen")
        config.host = listen.host
        config.port = listen.port
        config.admin = try command.string("admin-listen").map { try address($0, flag: "admin-listen") }
        if let admin = config.admin, admin == listen {
            throw OptionError("--admin-listen must differ from --listen")
        }
        switch (command.string("tls-cert"), command.string("tls-key")) {
        case (nil, nil): break
        case (let certificate?, let key?):
            let files = TLSFiles(certificate: certificate, key: key)
            do {
                try files.check()
            } catch {
                throw CommandFailure(message: error.detail.isEmpty ? error.description : "\(error.description): \(error.detail)", exitCode: 64)
            }
            config.tls = files
        case (nil, _?): throw OptionError("--tls-key needs --tls-cert")
        case (_?, nil): throw OptionError("--tls-cert needs --tls-key")
        }
        config.httpThreads = try command.positive("threads")
        config.writerCount = try command.positive("writers")
        config.validatorCount = try command.int("validators", in: 1...256)
        config.feedConcurrency = try command.int("feed-reads", in: 1...64)
        config.queueCapacity = try command.positive("queue")
        config.queueBytes = try command.int("queue-mib", in: 1...(1 << 30)) << 20
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
        config.perAddressUploadLimit = try command.positive("per-address-uploads")
        config.limits.maxBodyBytes = try command.positive("max-body")
        config.limits.maxDecompressedBytes = try command.positive("max-decompressed")
        config.limits.maxEventsPerRequest = try command.positive("max-events")
        config.commitBound = TimeInterval(try command.positive("ready-commit-bound"))
        do {
            config.trustedProxies = try TrustedProxies(parsing: command.strings("trusted-proxy"))
        } catch {
            throw CommandFailure(message: "--trusted-proxy: \(error.description)", exitCode: 64)
        }
        return config
    }

    /// `HOST:PORT` of `--listen` and `--admin-listen`.
    static func address(_ text: String, flag: String) throws -> ListenAddress {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw OptionError("--\(flag) wants HOST:PORT, got '\(text)'")
        }
        return ListenAddress(host: String(text[..<colon]), port: port)
    }
}
