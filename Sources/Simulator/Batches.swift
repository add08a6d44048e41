/// One `/v1/telemetry` request body as the SDK of one installation would post it.
public struct TelemetryBatch: Sendable, PostedBatch {
    public var body: [UInt8]
    public var eventCount: Int
    /// Byte offset of the 24-character `sent_at` value (inside its quotes), re-stamped at posting.
    public var sentAtOffset: Int
    /// The device clock's offset from true time; `sent_at` = posting time + skew.
    public var skewMs: Int64
    /// A second copy of an earlier batch (a client retry after a lost response).
    public var isRetry: Bool

    /// The body with `sent_at` set to the device clock at `nowMs` (true wall time of posting).
    public func stamped(nowMs: Int64) -> [UInt8] {
        var bytes = body
        var text: [UInt8] = []
        text.reserveCapacity(SimTime.rfc3339Length)
        SimTime.appendRFC3339(nowMs + skewMs, to: &text)
        bytes.replaceSubrange(sentAtOffset..<(sentAtOffset + SimTime.rfc3339Length), with: text)
        return bytes
    }
}

/// One `/v1/sends` request body (JSON object or NDJSON).
public struct SendsBatch: Sendable, PostedBatch {
    public var body: [UInt8]
    public var contentType: String
    public var eventCount: Int
    public var isRetry: Bool
}

/// A request body that a client may post twice.
public protocol PostedBatch {
    var eventCount: Int { get }
    /// A second copy of an earlier batch (a client retry after a lost response).
    var isRetry: Bool { get set }
}

extension Array where Element: PostedBatch {
    /// Appends `batch`, and with probability `share` a retried copy right after it.
    mutating func append(_ batch: Element, retriedWith share: Double, _ r: inout SimRandom) {
        append(batch)
        guard r.chance(share) else { return }
        var copy = batch
        copy.isRetry = true
        append(copy)
    }
}
