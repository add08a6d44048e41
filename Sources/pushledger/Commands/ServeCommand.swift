import CommandLineParsing
import Foundation
import HTTPServer
import IngestServer

/// `pushledger serve`: the v1 ingest API until SIGTERM/SIGINT (which drain in-flight requests).
struct ServeCommand: Command {
    /// The settings' defaults, shown in the help; a flag not given keeps its default.
    private static let defaults = IngestServerConfig()

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "serve",
            summary: "Run the v1 HTTP ingest service (POST /v1/telemetry, /v1/sends; /healthz, /readyz, /metrics)",
            discussion: """
                A 200 is written only after the request's events are committed. A free writer commits every request \
                waiting for it in one transaction (up to --batch): what arrives while the writers are busy goes \
                together. SIGTERM or SIGINT stops accepting, finishes in-flight requests and exits 0; a \
                second signal exits at once. Slow clients: a connection that has not sent its request headers within \
                --header-deadline is closed, however busily it trickles; a body not complete within --upload-deadline \
                of its headers is cut off by a timer; at the connection limit (--connections, minus a sixteenth kept \
                free) the connections waiting longest for headers, then the uploads in progress longest, are closed to \
                let new ones in; --per-address caps one address's connections and --per-address-uploads its bodies \
                arriving at once (429 past it). Behind a proxy every connection comes from the proxy: raise \
                --per-address above its pool and let the proxy enforce client timeouts. HTTPS: --tls-cert and \
                --tls-key (PEM, both or neither) serve TLS 1.2 and 1.3 only; SIGHUP reads both files again and new \
                connections get the new certificate while open ones finish on the old (a file that cannot be used \
                keeps the old one and logs an error); SIGHUP also reloads the key table. --admin-listen moves \
                /metrics, /healthz and /readyz to a private plain-HTTP address; the public listener then answers 404 \
                for them. Fairness between apps: each app waits in its own lane of at most --app-share requests (past \
                it that app gets 429 with Retry-After), writers take the apps in turn, and one app holds at most \
                --app-writers writers at once while another app posted within 10 s, so another app's request never \
                waits for a flood's transaction; a per-key rate (keys create/update --rate) limits one key whatever \
                the load. Shards by app: with --directory-url (PUSHLEDGER_DIRECTORY_URL) the keys and the shard map \
                come from the directory database and each app's events go to its shard alone; a shard that does not \
                answer fails its own apps' requests (503) alone. See docs/operations/README.md and \
                docs/operations/scaling.md.
                """)
    }

    @Option(
        help: "IPv4 address and port to listen on",
        default: "\(ServeCommand.defaults.host):\(ServeCommand.defaults.port)", environment: "PUSHLEDGER_LISTEN",
        placeholder: "host:port")
    var listen: String

    @Option(
        help: "PEM certificate chain for HTTPS, server first (needs --tls-key)", environment: "PUSHLEDGER_TLS_CERT",
        placeholder: "file")
    var tlsCert: String?

    @Option(help: "PEM private key (unencrypted) of --tls-cert", environment: "PUSHLEDGER_TLS_KEY", placeholder: "file")
    var tlsKey: String?

    @Option(
        help: "Serve /metrics, /healthz, /readyz here, plain HTTP, not on --listen",
        environment: "PUSHLEDGER_ADMIN_LISTEN", placeholder: "host:port")
    var adminListen: String?

    @Option(help: "HTTP threads (by default one per core, 2 to 4)", default: ServeCommand.defaults.http.threads)
    var threads: Int

    @Option(
        help: "Threads that decode and validate bodies, taking the apps in turn (by default one per core, 2 to 4)",
        default: ServeCommand.defaults.validatorCount)
    var validators: Int

    @Option(
        help: "Invalid-token feed reads at once (each with a database connection of its own)",
        default: ServeCommand.defaults.feedConcurrency)
    var feedReads: Int

    @Option(help: "Writer threads (one database connection each)", default: ServeCommand.defaults.writerCount)
    var writers: Int

    @Option(help: "Validated requests waiting for a writer before 429", default: ServeCommand.defaults.queueCapacity)
    var queue: Int

    @Option(
        help: "MiB of decoded bodies the waiting requests hold at most before 429 (an app's share in proportion)",
        default: ServeCommand.defaults.queueBytes >> 20)
    var queueMib: Int

    @Option(
        help:
            """
            Writers one app may hold at once, the rest kept for other apps (default: writers - 1; an app alone uses \
            all)
            """
    )
    var appWriters: Int?

    @Option(
        help: "Validated requests of one app waiting at most; past it that app alone gets 429",
        default: ServeCommand.defaults.appQueueShare)
    var appShare: Int

    @Option(
        help: "Events committed together in one transaction at most (one larger request goes alone)",
        default: ServeCommand.defaults.maxEventsPerBatch)
    var batchEvents: Int

    @Option(
        help: "Requests committed together in one transaction at most", default: ServeCommand.defaults.maxUnitsPerBatch)
    var batch: Int

    @Option(help: "Open connections at most", default: ServeCommand.defaults.http.connectionLimit)
    var connections: Int

    @Option(
        help: "Bytes of libmicrohttpd memory per connection", default: ServeCommand.defaults.http.connectionMemoryLimit)
    var connectionMemory: Int

    @Option(help: "Seconds an idle connection stays open", default: ServeCommand.defaults.http.requestTimeoutSeconds)
    var timeout: Int

    @Option(
        help: "Seconds a request body may take to arrive in all (slow clients are cut off)",
        default: ServeCommand.defaults.http.uploadDeadlineSeconds)
    var uploadDeadline: Int

    @Option(
        help: "Seconds a new connection has to send its request headers in all",
        default: ServeCommand.defaults.http.headerDeadlineSeconds)
    var headerDeadline: Int

    @Option(
        help: "Open connections from one client address at most",
        default: ServeCommand.defaults.http.perAddressConnectionLimit)
    var perAddress: Int

    @Option(
        help: "Request bodies arriving at once from one client address at most (429 past it)",
        default: ServeCommand.defaults.http.perAddressUploadLimit)
    var perAddressUploads: Int

    @Option(help: "Bytes of a request body as sent", default: ServeCommand.defaults.limits.maxBodyBytes)
    var maxBody: Int

    @Option(help: "Bytes of a body after gzip", default: ServeCommand.defaults.limits.maxDecompressedBytes)
    var maxDecompressed: Int

    @Option(help: "Events (or sends) per request", default: ServeCommand.defaults.limits.maxEventsPerRequest)
    var maxEvents: Int

    @Option(
        help: "Seconds a probe commit may wait (e.g. for the synchronous standby) before /readyz answers 503",
        default: Int(ServeCommand.defaults.commitBound))
    var readyCommitBound: Int

    @Option(
        help: "Trusted proxy (CIDR) for X-Forwarded-For", environment: "PUSHLEDGER_TRUSTED_PROXIES", placeholder: "cidr"
    )
    var trustedProxy: [String]

    func validate() throws(OptionError) {
        switch (tlsCert, tlsKey) {
        case (nil, _?): throw OptionError("--tls-key needs --tls-cert")
        case (_?, nil): throw OptionError("--tls-cert needs --tls-key")
        default: break
        }
    }

    func run(_ context: CommandContext) throws -> Int32 {
        let config = try configuration()
        let started: (IngestServer) -> Void = { server in
            context.logger.info("listening", ["address": "\(config.host):\(server.port)"])
        }
        do {
            let version = "\(BuildInfo.version) (\(BuildInfo.commit))"
            if let directory = context.directoryURL {
                try IngestServer.run(
                    config: config, directoryURL: directory, logger: context.logger.named("serve"), version: version,
                    started: started)
            } else {
                try IngestServer.run(
                    config: config, databaseURL: context.databaseURL, logger: context.logger.named("serve"),
                    version: version,
                    started: started)
            }
        } catch {
            throw CommandFailure(message: error.description)
        }
        return 0
    }

    /// Flags → server settings; a bad value, or a TLS file that cannot be used, is bad usage
    /// (64) and nothing is started.
    func configuration() throws -> IngestServerConfig {
        var config = IngestServerConfig()
        let listen = try Self.address(listen, option: $listen)
        config.host = listen.host
        config.port = listen.port
        config.admin = try adminListen.map { try Self.address($0, option: $adminListen) }
        if let admin = config.admin, admin == listen {
            throw OptionError("--admin-listen must differ from --listen")
        }
        switch (tlsCert, tlsKey) {
        case (nil, nil): break
        case (let certificate?, let key?):
            let files = TLSFiles(certificate: certificate, key: key)
            do {
                try files.check()
            } catch {
                throw CommandFailure(
                    message: error.detail.isEmpty ? error.description : "\(error.description): \(error.detail)",
                    exitCode: .usage)
            }
            config.tls = files
        case (nil, _?), (_?, nil): preconditionFailure("validate() pairs --tls-cert and --tls-key")
        }
        config.http.threads = try $threads.positive()
        config.writerCount = try $writers.positive()
        config.validatorCount = try $validators.within(1...256)
        config.feedConcurrency = try $feedReads.within(1...64)
        config.queueCapacity = try $queue.positive()
        config.queueBytes = try $queueMib.within(1...(1 << 30)) << 20
        config.maxUnitsPerBatch = try $batch.positive()
        config.appQueueShare = try $appShare.positive()
        if let limit = try $appWriters.within(1...config.writerCount) { config.appWriterLimit = limit }
        config.maxEventsPerBatch = try $batchEvents.positive()
        config.http.connectionLimit = try $connections.positive()
        config.http.connectionMemoryLimit = try $connectionMemory.positive()
        config.http.requestTimeoutSeconds = try $timeout.positive()
        config.http.uploadDeadlineSeconds = try $uploadDeadline.positive()
        config.http.headerDeadlineSeconds = try $headerDeadline.positive()
        config.http.perAddressConnectionLimit = try $perAddress.positive()
        config.http.perAddressUploadLimit = try $perAddressUploads.positive()
        config.limits.maxBodyBytes = try $maxBody.positive()
        config.limits.maxDecompressedBytes = try $maxDecompressed.positive()
        config.limits.maxEventsPerRequest = try $maxEvents.positive()
        config.commitBound = TimeInterval(try $readyCommitBound.positive())
        do {
            config.trustedProxies = try TrustedProxies(parsing: trustedProxy)
        } catch {
            throw CommandFailure(message: "--trusted-proxy: \(error.description)", exitCode: .usage)
        }
        return config
    }

    /// `HOST:PORT` of `--listen` and `--admin-listen`.
    static func address<Value>(_ text: String, option: Option<Value>) throws -> ListenAddress {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw OptionError("\(option.display) wants HOST:PORT, got '\(text)'")
        }
        return ListenAddress(host: String(text[..<colon]), port: port)
    }
}
