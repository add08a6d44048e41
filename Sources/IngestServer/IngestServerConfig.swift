import Foundation
import HTTPServer
import PushLedgerContract

/// Settings of `pushledger serve`. Every limit that bounds memory is here; the worst case is
/// written out in docs/reliability.md ("Memory bound").
public struct IngestServerConfig: Sendable {
    /// Address to listen on (IPv4 literal).
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one (tests read it back from `IngestServer.port`).
    public var port: UInt16 = 8080
    /// HTTPS on the public listener with this certificate and key (TLS 1.2 and 1.3); nil is
    /// plain HTTP. SIGHUP reads the files again.
    public var tls: TLSFiles? = nil
    /// Where `/metrics`, `/healthz` and `/readyz` are served (plain HTTP, a private address);
    /// the public listener then answers 404 for them. Nil serves them on the public listener.
    public var admin: ListenAddress? = nil
    /// Threads, connections and deadlines of the HTTP listeners (HTTP threads: `threadsPerKind`).
    public var http: HTTPServerLimits = {
        var limits = HTTPServerLimits()
        limits.threads = IngestServerConfig.threadsPerKind
        return limits
    }()
    /// Peers whose `X-Forwarded-For` names the client (a load balancer in front); logs of
    /// refused keys and the access log carry that client address.
    public var trustedProxies = TrustedProxies()
    /// Body, event and time limits of the contract.
    public var limits = IngestLimits()
    /// Validated requests waiting for a writer; a full queue answers 429.
    public var queueCapacity = 512
    /// Bytes of decoded bodies held by waiting requests at most (a request alone is always
    /// taken); past it 429, and an app's share of it is `appQueueShare / queueCapacity`.
    public var queueBytes = 128 << 20
    /// Validated requests of one app (all its keys) waiting at most: past it that app alone gets
    /// 429, so one app's flood cannot fill the queue that every app shares.
    public var appQueueShare = 128
    /// Writer threads, each with its own database connection.
    public var writerCount = 2
    /// Threads that decompress, parse and validate bodies, taking the apps in turn (the HTTP
    /// threads read and answer, and validate only the small bodies of `inlineBodyBytes`).
    public var validatorCount = IngestServerConfig.threadsPerKind
    /// HTTP threads and validators by default: one per core, 2 to 4. A request passes from an
    /// HTTP thread to a validator (unless it is small) to a writer; threads beyond the cores
    /// only add switches between them (phone-sized requests on 2 cores: 4 and 4 cost 15 % more
    /// server CPU per event than 2 and 2, docs/performance.md). At least 2 validators, so one
    /// app's bodies always leave one for the others.
    public static let threadsPerKind = min(4, max(2, ProcessInfo.processInfo.activeProcessorCount))
    /// Request bodies of at most this many bytes as sent, and `inlineDecodedBytes` as JSON
    /// text, are validated on the HTTP thread that read them instead of on a validator: for a
    /// phone's few events the hand-off between threads costs more than the validation.
    public var inlineBodyBytes = 4 << 10
    /// JSON text of a body validated on the HTTP thread at most (see `inlineBodyBytes`).
    public var inlineDecodedBytes = 16 << 10
    /// What the HTTP threads decompress a small body to at most: `inlineDecodedBytes`, never past
    /// the contract's limit, so a body too large for it goes to a validator and its 413.
    var inlineTextBytes: Int { min(inlineDecodedBytes, limits.maxDecompressedBytes) }
    /// Invalid-token feed reads at once; each has a database connection of the reads' own pool.
    public var feedConcurrency = 2
    /// Writers busy with one app's requests at once at most; nil: one fewer than `writerCount`
    /// (with a single writer, that one). The writers left over are always free for the other
    /// apps, so a flood never makes another app's request wait for a flood's transaction.
    public var appWriterLimit: Int?
    /// Requests written together in one transaction at most.
    public var maxUnitsPerBatch = 128
    /// Events written together in one transaction at most (a single larger request still goes
    /// alone): short transactions keep a small app's request from waiting behind a flood's batch.
    public var maxEventsPerBatch = 5_000
    /// Whether a batch written while more requests wait leaves the installations it proves alive
    /// and the re-resolution of earlier sends by its registrations to later
    /// (`pushledger_apply_derived_inputs`): the writers apply them, many batches in one
    /// transaction, when the queue stays empty (`writerIdleSeconds`), and a rollup pass or an
    /// erasure first. The events,
    /// tokens and invalid-token feed are stored before the answer either way.
    public var deferDerivedState = true
    /// Batches whose derived state waits at most while requests never stop coming.
    public var derivedStateBatches = 64
    /// Seconds the writers' queue stays empty before they apply the derived state waiting and
    /// announce that ingest went idle (a rollup follower then starts its pass): long enough
    /// that a lull between requests under load is not taken for the end of ingest.
    public var writerIdleSeconds = 0.1
    /// Seconds between reloads of the key table.
    public var keyRefreshInterval: TimeInterval = 10
    /// Seconds between reconnect attempts while Postgres is unreachable.
    public var reconnectInterval: TimeInterval = 1
    /// Seconds between readiness probe commits (`CommitProbe`).
    public var commitProbeInterval: TimeInterval = 1
    /// Seconds a probe commit may wait (for the synchronous standby) before `/readyz` answers
    /// 503. Short, so a load balancer moves away while commits hang; above a commit's usual
    /// time under load, so a busy primary is not taken for a stuck one.
    public var commitBound: TimeInterval = 2
    /// `Retry-After` seconds for 429.
    public var retryAfterSaturated = 1
    /// `Retry-After` seconds for 503.
    public var retryAfterUnavailable = 5

    public init() {}
}

/// An IPv4 address and TCP port to listen on.
public struct ListenAddress: Sendable, Equatable {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }
}

extension IngestServerConfig {
    /// Bytes one parsed JSON value costs at most: the costliest shape as measured, rounded up
    /// (docs/reliability.md, "Memory bound", has the figures).
    public static let bytesPerJSONValue = 96

    /// The most memory request handling can hold, beside the process's baseline: every
    /// connection's pool and body as sent; on each validator thread (one body at a time) a
    /// decompressed body, its parsed values and the strings
    /// validated out of it, and the same on each HTTP thread for a small body validated there;
    /// the queue's byte bound (jobs waiting and being written) plus the one job it always takes.
    /// docs/reliability.md writes the formula out.
    public var memoryBound: Int {
        let connections = http.connectionLimit * (http.connectionMemoryLimit + limits.maxBodyBytes)
        func decoding(_ text: Int) -> Int { 2 * text + min(limits.maxJSONValues, text) * Self.bytesPerJSONValue }
        let validating = validatorCount * decoding(limits.maxDecompressedBytes)
        let inline = http.threads * decoding(inlineTextBytes)
        return connections + validating + inline + queueBytes + 2 * limits.maxDecompressedBytes
    }
}
