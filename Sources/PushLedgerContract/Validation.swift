import Foundation

/// Request limits of the contract (defaults; all configurable).
public struct IngestLimits: Sendable, Equatable {
    public var maxBodyBytes = 1 << 20
    public var maxDecompressedBytes = 8 << 20
    public var maxEventsPerRequest = 2_000
    public var maxEventBytes = 32 << 10
    /// Events older than this before the receive time are `too_old` (nil lifts the limit, for back-fills).
    public var maxAge: TimeInterval? = 30 * 86_400
    /// Events later than this after the receive time are `in_future`.
    public var maxFuture: TimeInterval = 86_400
    public init() {}
}

/// A request that fails as a whole (the envelope): HTTP status, contract error code, message.
public struct EnvelopeError: Error, Sendable, Equatable {
    /// 400, 403 or 413.
    public var status: Int
    public var code: String
    public var message: String
    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }
}

/// A validated `/v1/telemetry` request: the envelope, its valid events, and the rejected ones.
public struct ValidatedTelemetry: Sendable, Equatable {
    public var envelope: TelemetryEnvelope
    public var events: [TelemetryEvent]
    public var rejections: [Rejection]
    public init(envelope: TelemetryEnvelope, events: [TelemetryEvent], rejections: [Rejection]) {
        self.envelope = envelope
        self.events = events
        self.rejections = rejections
    }
}

/// A validated `/v1/sends` request.
public struct ValidatedSends: Sendable, Equatable {
    public var sends: [SendResult]
    public var rejections: [Rejection]
    public init(sends: [SendResult], rejections: [Rejection]) {
        self.sends = sends
        self.rejections = rejections
    }
}

/// Body format of a `/v1/sends` request.
public enum SendsFormat: Sendable { case json, ndjson }

/// The endpoint a request came to (the failed-event store records it).
public enum IngestEndpoint: String, Sendable, CaseIterable {
    case telemetry = "/v1/telemetry", sends = "/v1/sends"
}

/// One validated request on its way to the store: written in one transaction together with
/// other requests' units by the writer workers.
public enum IngestUnit: Sendable, Equatable {
    case telemetry(ValidatedTelemetry, receivedAt: Date)
    /// `appID` is the key's app (sends of other apps were already rejected as `app_mismatch`).
    case sends(ValidatedSends, appID: String, receivedAt: Date)
    /// A request rejected as a whole (400/413), or one that could not be stored: kept in the
    /// failed-event store (bounded, with whose it was); nothing else stored.
    case failedRequest(
        endpoint: IngestEndpoint, appID: String, code: String, message: String, rawBody: FailedText, receivedAt: Date,
        subject: FailedSubject = FailedSubject())
}

/// What storing one unit did: events newly stored, and valid events already stored before.
public struct WriteOutcome: Sendable, Equatable {
    public var accepted: Int
    public var duplicates: Int
    public init(accepted: Int, duplicates: Int) {
        self.accepted = accepted
        self.duplicates = duplicates
    }
}
