import Foundation
import Gzip
import HTTPServer
import Metrics
import PushLedgerContract
import PushLedgerSupport
import Store
import Synchronization

/// What `decide` learned from an ingest request's headers, handed back with its body.
struct IngestRequest: Sendable {
    var route: Route
    var endpoint: IngestEndpoint
    var key: KeyRecord
    var format: BodyFormat
    /// `?dry_run=true`: answered like a real request, nothing stored.
    var dryRun: Bool
}

/// The application: routing, auth, decoding, validation, and handing units to the queue.
final class IngestService: HTTPHandler {
    let config: IngestServerConfig
    private let keys: KeyVerifier
    private let queue: IngestQueue
    let rateLimiter = KeyRateLimiter()
    /// Decoding and validation, app by app in turn, off the HTTP threads.
    let validators: FairWorkers
    /// Invalid-token feed reads: a concurrency of their own.
    let feedWorkers: FairWorkers
    let health: DatabaseHealth
    let commitProbe: CommitProbe?
    let metrics: ServerMetrics
    let logger: Logger
    /// Reads the invalid-token feed (not through the write queue: a read commits nothing).
    let feed: @Sendable (String, InvalidTokenFeed.Query) throws(StoreError) -> InvalidTokenFeed.Page
    /// Set while shutting down: `/readyz` answers 503 so load balancers move away.
    let draining = Atomic<Bool>(false)

    init(
        config: IngestServerConfig, keys: KeyVerifier, queue: IngestQueue, health: DatabaseHealth,
        commitProbe: CommitProbe? = nil,
        metrics: ServerMetrics, logger: Logger,
        feed: @escaping @Sendable (String, InvalidTokenFeed.Query) throws(StoreError) -> InvalidTokenFeed.Page
    ) {
        validators = FairWorkers(threads: config.validatorCount, name: "validator")
        feedWorkers = FairWorkers(threads: config.feedConcurrency, name: "feed")
        self.feed = feed
        self.config = config
        self.keys = keys
        self.queue = queue
        self.health = health
        self.commitProbe = commitProbe
        self.metrics = metrics
        self.logger = logger
    }

    /// Ready means writable: Postgres reachable and commits completing within the probe's bound
    /// (not while a new primary waits for its synchronous standby), keys loaded, queue not full.
    var isReady: Bool {
        health.isUp && commitProbe?.commitsComplete ?? true && keys.isLoaded && !queue.isSaturated
            && !draining.load(ordering: .relaxed)
    }

    // MARK: HTTPHandler

    func decide(_ head: RequestHead) -> HeadDecision {
        let route: Route
        switch Route.resolve(method: head.method, path: head.path) {
        case .success(let resolved): route = resolved
        case .failure(.notFound): return .respond(.notFound)
        case .failure(.methodNotAllowed(let allow)): return .respond(.methodNotAllowed(allow: allow))
        }
        if head.method == "OPTIONS" { return .respond(.telemetryPreflight) }
        guard let scope = route.scope else { return .respond(operations(route)) }
        guard let token = bearerToken(head.authorization) else { return .respond(.missingKey) }
        let verdict = keys.verify(token)
        guard verdict == .unknown else { return decide(head, route: route, scope: scope, token: token, verdict) }
        // Not in memory: not refused on the cache's word. The request waits, suspended, for a
        // read of the key table that started after it arrived (a key created a moment ago).
        let arrived = ContinuousClock.now
        return .later { [self] slot in
            keys.confirm(token, arrived: arrived) { [self] verdict in
                slot.decide(decide(head, route: route, scope: scope, token: token, verdict))
            }
        }
    }

    /// The rest of `decide` once the key's verdict is known.
    private func decide(
        _ head: RequestHead, route: Route, scope: String, token: String, _ verdict: KeyVerifier.Verdict
    ) -> HeadDecision {
        let key: KeyRecord
        switch verdict {
        case .valid(let record): key = record
        case .unknown:
            logger.info("unknown key", ["path": head.path, "key_prefix": Logger.redact(token), "client": client(head)])
            return .respond(.unknownKey)
        case .revoked(let record):
            logger.info("revoked key", ["path": head.path, "key_id": record.id, "client": client(head)])
            return .respond(.unknownKey)
        case .expired(let record):
            logger.info("expired key", ["path": head.path, "key_id": record.id])
            return .respond(.expiredKey)
        case .unavailable: return .respond(.unavailable(retryAfter: config.retryAfterUnavailable))
        }
        guard key.scope == scope else {
            metrics.failedRequests.increment([route.rawValue, "forbidden"])
            return .respond(.wrongScope(needed: scope))
        }
        guard let endpoint = route.endpoint else { return decideFeed(head, key: key) }
        let format: BodyFormat
        switch BodyFormat.negotiate(route: route, contentType: head.contentType, contentEncoding: head.contentEncoding)
        {
        case .success(let negotiated): format = negotiated
        case .failure(.unsupportedType(let type)):
            let allowed = route == .sends ? "application/json or application/x-ndjson" : "application/json"
            return .respond(.error(415, "unsupported_media_type", "Content-Type \(type ?? "(none)") is not \(allowed)"))
        case .failure(.unsupportedEncoding(let encoding)):
            return .respond(.error(415, "unsupported_encoding", "Content-Encoding \(encoding) is not gzip or identity"))
        }
        guard let dryRun = Route.dryRun(head.dryRun) else {
            return .respond(.error(400, "invalid_query", "dry_run must be true or false"))
        }
        // Known trouble answers before the body is read.
        guard !draining.load(ordering: .relaxed) else {
            return .respond(.shuttingDown(retryAfter: config.retryAfterUnavailable))
        }
        guard health.isUp else { return .respond(.unavailable(retryAfter: config.retryAfterUnavailable)) }
        guard !queue.isSaturated else { return .respond(.saturated(retryAfter: config.retryAfterSaturated)) }
        guard !queue.isShareFull(key.appID) else {
            return .respond(throttle(.queueShare, key: key, retryAfter: config.retryAfterSaturated))
        }
        return .readBody(
            limit: config.limits.maxBodyBytes,
            context: IngestRequest(route: route, endpoint: endpoint, key: key, format: format, dryRun: dryRun))
    }

    func bodyTooLarge(_ head: RequestHead) -> HTTPResponse {
        metrics.failedRequests.increment([Route.metricsLabel(path: head.path), "body_too_large"])
        return .bodyTooLarge(limit: config.limits.maxBodyBytes)
    }

    func handle(_ head: RequestHead, body: [UInt8], context: any Sendable, reply: any ReplySlot) {
        let receivedAt = Date()
        let shuttingDown = HTTPResponse.shuttingDown(retryAfter: config.retryAfterUnavailable)
        if let request = context as? FeedRequest {
            guard feedWorkers.submit(app: request.appID, { [self] in handleFeed(request, reply: reply) }) else {
                return reply.send(shuttingDown)
            }
            return
        }
        guard let request = context as? IngestRequest else { return reply.send(.internalError) }
        // A small body costs less validated right here than handed to a validator and back:
        // on phone-sized requests the hand-off's thread switches cost about a tenth of the
        // server's CPU. Its text is held to `inlineTextBytes`, so what the HTTP threads
        // hold stays bounded; anything larger, or gzip that will not decompress within that,
        // goes to a validator (which gives a bad body its answer).
        if body.count <= config.inlineBodyBytes, let text = inlineText(body, request) {
            return process(body, request, text: text, receivedAt: receivedAt, reply: reply)
        }
        guard
            validators.submit(
                app: request.key.appID, { [self] in process(body, request, receivedAt: receivedAt, reply: reply) })
        else {
            return reply.send(shuttingDown)
        }
    }

    /// A small body's JSON text for validating it on the HTTP thread; nil to leave it to a validator.
    private func inlineText(_ body: [UInt8], _ request: IngestRequest) -> [UInt8]? {
        guard request.format.gzip else { return body.count <= config.inlineTextBytes ? body : nil }
        return try? Gzip.decompress(body, limit: config.inlineTextBytes)
    }

    /// Decodes, validates and queues one request (on a validator thread, or on the HTTP thread
    /// with `text` already decoded).
    private func process(
        _ body: [UInt8], _ request: IngestRequest, text: [UInt8]? = nil, receivedAt: Date, reply: any ReplySlot
    ) {
        let (unit, decoded, refusal) = prepare(body, request, text: text, receivedAt: receivedAt)
        guard let unit else { return reply.send(refusal.map(HTTPResponse.envelope) ?? .internalError) }
        // A dry run's refusal is answered as is: the failed-event store keeps only real requests.
        if request.dryRun, let refusal { return reply.send(.envelope(refusal)) }
        // A refused request takes one event from the key's bucket and is answered as refused
        // whatever the rate (a 429 would have the client retry a request that cannot succeed);
        // over the rate its failed-event row is not stored, so refusals cannot outgrow the key's rate.
        if let wait = rateLimiter.admit(key: request.key, events: max(1, unit.eventCount)) {
            guard let refusal else { return reply.send(throttle(.rateLimit, key: request.key, retryAfter: wait)) }
            metrics.failedEventsNotStored.increment([Throttle.rateLimit.rawValue])
            return reply.send(.envelope(refusal))
        }
        let retryAfter = (saturated: config.retryAfterSaturated, unavailable: config.retryAfterUnavailable)
        // Held until written: the decoded body (for a quarantine) and the parsed unit, about as large again.
        let bytes = refusal == nil ? 2 * decoded.count : FailedText.maxStoredBytes
        let job = IngestJob(
            unit: unit, dryRun: request.dryRun, app: request.key.appID, body: refusal == nil ? decoded : [],
            bytes: bytes
        ) { result in
            switch (result, refusal) {
            case (_, let refusal?): reply.send(.envelope(refusal))
            case (.success(let outcome), nil):
                reply.send(.json(200, IngestResponse.accepted(outcome, rejected: unit.rejections)))
            case (.failure(.quarantined(let quarantine)), nil): reply.send(.envelope(quarantine))
            case (.failure(.unavailable), nil): reply.send(.unavailable(retryAfter: retryAfter.unavailable))
            case (.failure(.outcomeUnknown), nil): reply.send(.outcomeUnknown(retryAfter: retryAfter.unavailable))
            case (.failure(.failed), nil): reply.send(.internalError)
            }
        }
        let submission = queue.submit(job)
        guard submission != .queued else { return }
        if let refusal {
            metrics.failedEventsNotStored.increment([Throttle.queueShare.rawValue])
            return reply.send(.envelope(refusal))
        }
        switch submission {
        case .full: reply.send(.saturated(retryAfter: retryAfter.saturated))
        case .shareFull: reply.send(throttle(.queueShare, key: request.key, retryAfter: retryAfter.saturated))
        case .queued, .closed: reply.send(.shuttingDown(retryAfter: retryAfter.unavailable))
        }
    }

    /// A 429 for this key's app only, counted per app and reason.
    private func throttle(_ reason: Throttle, key: KeyRecord, retryAfter: Int) -> HTTPResponse {
        metrics.throttled.increment([metrics.appLabel(key.appID), reason.rawValue])
        return .throttled(reason, retryAfter: retryAfter)
    }

    func commonHeaders(_ head: RequestHead) -> [(name: String, value: String)] {
        Route(rawValue: head.path)?.corsHeaders ?? []
    }

    func responded(_ head: RequestHead, status: Int) {
        metrics.httpRequests.increment([Route.metricsLabel(path: head.path), String(status)])
        if head.dryRun == "true" {
            metrics.dryRunRequests.increment([Route.metricsLabel(path: head.path), String(status)])
        }
        // Failures are logged where they happen (writer, key check); this is the access log.
        logger.debug(
            "request",
            [
                "method": head.method, "path": Route.metricsLabel(path: head.path), "status": status,
                "client": client(head),
            ])
    }

    /// The client's address: the peer, or what a trusted proxy forwarded.
    func client(_ head: RequestHead) -> String {
        config.trustedProxies.clientAddress(peer: head.peer, forwardedFor: head.forwardedFor)
    }

    // MARK: Steps

    /// The unit to store, the body as decoded, and, for a request refused as a whole, the
    /// refusal to answer after storing it. A 400 or 413 is kept in the failed-event store with
    /// a bounded prefix of the body's text (empty when it was gzip that would not decompress)
    /// and the installation it named; a 403 is not stored (no unit).
    private func prepare(
        _ body: [UInt8], _ request: IngestRequest, text decodedText: [UInt8]?, receivedAt: Date
    ) -> (IngestUnit?, [UInt8], EnvelopeError?) {
        var text: [UInt8] = request.format.gzip ? [] : body
        do throws(EnvelopeError) {
            let decoded = if let decodedText { decodedText } else { try decode(body, request) }
            text = decoded
            return (try validate(decoded, request, receivedAt: receivedAt), decoded, nil)
        } catch {
            metrics.failedRequests.increment([request.route.rawValue, error.code])
            guard error.status == 400 || error.status == 413 else { return (nil, [], error) }
            // Postgres text holds no U+0000 (a raw NUL byte would fail the whole COPY batch).
            let unit = IngestUnit.failedRequest(
                endpoint: request.endpoint, appID: request.key.appID, code: error.code,
                message: Rejection.storableText(Array(error.message.utf8)[...]), rawBody: FailedText(text[...]),
                receivedAt: receivedAt,
                subject: error.code == "invalid_json"
                    ? FailedSubject() : FailedSubject.ofBody(text, limits: config.limits))
            return (unit, [], error)
        }
    }

    /// The body as JSON text: gunzipped when sent gzip, within the decompressed limit.
    private func decode(_ body: [UInt8], _ request: IngestRequest) throws(EnvelopeError) -> [UInt8] {
        guard request.format.gzip else { return body }
        let limit = config.limits.maxDecompressedBytes
        do {
            return try Gzip.decompress(body, limit: limit)
        } catch {
            switch error {
            case .tooLarge:
                throw EnvelopeError(
                    status: 413, code: "decompressed_too_large",
                    message: "the body decompresses to more than \(limit) bytes")
            case .corrupt(let why):
                throw EnvelopeError(status: 400, code: "invalid_gzip", message: "the body is not valid gzip: \(why)")
            }
        }
    }

    private func validate(
        _ body: [UInt8], _ request: IngestRequest, receivedAt: Date
    ) throws(EnvelopeError) -> IngestUnit {
        switch request.endpoint {
        case .telemetry:
            let validated = try TelemetryValidator.validate(
                body: body, keyAppID: request.key.appID, receivedAt: receivedAt, limits: config.limits)
            return .telemetry(validated, receivedAt: receivedAt)
        case .sends:
            let validated = try SendsValidator.validate(
                body: body, format: request.format.sendsFormat, keyAppID: request.key.appID, receivedAt: receivedAt,
                limits: config.limits)
            return .sends(validated, appID: request.key.appID, receivedAt: receivedAt)
        }
    }

    /// `/healthz`, `/readyz`, `/metrics`.
    private func operations(_ route: Route) -> HTTPResponse {
        switch route {
        case .healthz:
            return .content(200, "ok\n", type: "text/plain; charset=utf-8")
        case .readyz:
            return isReady
                ? .content(200, "ready\n", type: "text/plain; charset=utf-8")
                : .content(503, "not ready\n", type: "text/plain; charset=utf-8")
        case .metrics:
            return .content(200, metrics.render(), type: Prometheus.contentType)
        case .telemetry, .sends, .invalidTokens:
            return .notFound
        }
    }
}

extension IngestUnit {
    /// The rejected events that go back in the 200 body.
    var rejections: [Rejection] {
        switch self {
        case .telemetry(let validated, _): validated.rejections
        case .sends(let validated, _, _): validated.rejections
        case .failedRequest: []
        }
    }
}
