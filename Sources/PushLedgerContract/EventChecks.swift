import Foundation
import PushLedgerSupport

/// A per-event failure before it becomes a `Rejection`.
typealias EventFailure = (code: RejectionCode, message: String)

/// `Result` needs an `Error`; this carries an `EventFailure` through it.
struct EventFailureError: Error {
    let value: EventFailure
    init(_ value: EventFailure) { self.value = value }
}

/// The checks and bookkeeping telemetry events and sends share: size, time window, and
/// turning a failure into a `Rejection` that the failed-event store can hold.
enum EventChecks {
    /// Longest `event_id` text echoed back in a rejection; a longer (bogus) one is cut here so
    /// one bad event cannot bloat the response or the failed-event store's id column.
    static let maxEchoedEventIDBytes = 128

    static func sizeFailure(byteCount: Int, limits: IngestLimits) -> EventFailure? {
        guard byteCount > limits.maxEventBytes else { return nil }
        return (.tooLarge, "the event is \(byteCount) bytes, at most \(limits.maxEventBytes) are allowed")
    }

    /// `too_old` / `in_future` for `time` (microseconds) against the receive time; `what`
    /// names the time in the message.
    static func timeFailure(_ time: Int64, receivedAt: Int64, limits: IngestLimits, what: String) -> EventFailure? {
        func message(_ window: TimeInterval, _ side: String) -> String {
            """
            \(what) \(RFC3339.format(microseconds: time)) is more than \(duration(window)) \(side) the server's \
            receive time
            """
        }
        if let maxAge = limits.maxAge, time < receivedAt - microseconds(maxAge) {
            return (.tooOld, message(maxAge, "before"))
        }
        if time > receivedAt + microseconds(limits.maxFuture) { return (.inFuture, message(limits.maxFuture, "after")) }
        // With the age limit lifted (back-fills), storage still bounds the time.
        if time < StorageRules.timeRange.lowerBound { return (.tooOld, "\(what) is before 0001-01-01T00:00:00Z") }
        if time > StorageRules.timeRange.upperBound {
            return (.inFuture, "\(what) is after 9999-12-31T23:59:59.999999Z")
        }
        return nil
    }

    /// A configured window in microseconds, clamped so absurd settings (infinite, NaN,
    /// centuries) mean "no limit" instead of trapping on conversion or overflow.
    static func microseconds(_ interval: TimeInterval) -> Int64 {
        let cap = Double(Int64(1) << 61)
        let micros = interval * 1e6
        if !(micros < cap) { return Int64(1) << 61 }
        return micros > -cap ? Int64(micros) : -(Int64(1) << 61)
    }

    static func duration(_ seconds: TimeInterval) -> String {
        if seconds >= 86_400, seconds.truncatingRemainder(dividingBy: 86_400) == 0 {
            let days = Int(seconds / 86_400)
            return days == 1 ? "1 day" : "\(days) days"
        }
        return "\(Int(seconds)) seconds"
    }

    /// The rejection of one event; `raw` is its text as sent.
    static func rejection(index: Int, value: JSONValue?, raw: ArraySlice<UInt8>, _ failure: EventFailure) -> Rejection {
        Rejection(
            index: index, eventID: eventIDText(value), code: failure.code, message: failure.message,
            raw: FailedText(raw),
            subject: FailedSubject(value))
    }

    /// The event's `event_id` when it is a string, even a malformed one (capped, storable).
    static func eventIDText(_ value: JSONValue?) -> String? {
        guard let text = value?["event_id"]?.stringValue else { return nil }
        if text.utf8.count <= maxEchoedEventIDBytes, !text.utf8.contains(0) { return text }
        var bytes = 0
        var cut = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > maxEchoedEventIDBytes { break }
            cut.append(scalar)
        }
        return Rejection.storableText(ArraySlice(String(cut).utf8))
    }

    /// A value from the request quoted in a message only when it is short and plain.
    static func quoted(_ text: String) -> String {
        text.utf8.count <= 64 && text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") })
            ? " \"\(text)\"" : ""
    }

    /// The failure for a batch element that is not a JSON object.
    static func notAnObject(_ value: JSONValue) -> EventFailure {
        (.invalidField, "invalid field \"event\": expected a JSON object, got \(value.kindName)")
    }
}

extension EnvelopeError {
    static func invalidJSON(_ error: JSONError) -> EnvelopeError {
        EnvelopeError(status: 400, code: "invalid_json", message: "the body is not JSON: \(error)")
    }

    static func bodyNotObject(_ value: JSONValue) -> EnvelopeError {
        EnvelopeError(
            status: 400, code: "invalid_field", message: "the body must be a JSON object, got \(value.kindName)")
    }

    /// 400 from an envelope reader's first failure.
    static func envelope(_ failure: EventFailure) -> EnvelopeError {
        EnvelopeError(status: 400, code: failure.code.rawValue, message: failure.message)
    }

    static func tooManyEvents(_ count: Int, limits: IngestLimits, noun: String) -> EnvelopeError {
        EnvelopeError(
            status: 413, code: "too_many_events",
            message: "the request has \(count) \(noun), at most \(limits.maxEventsPerRequest) are allowed")
    }
}

extension EnvelopeError: CustomStringConvertible {
    /// Safe to show to the client: it only describes their request.
    public var description: String { "\(status) \(code): \(message)" }
}

extension Rejection {
    /// Text Postgres can store: invalid UTF-8 repaired to U+FFFD, and U+0000 replaced by
    /// U+FFFD. Rejections already hold such text; the server can use this for whole bodies.
    public static func storableText(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        guard bytes.contains(0) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : $0 }))
    }
}
