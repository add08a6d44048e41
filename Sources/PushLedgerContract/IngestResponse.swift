import PushLedgerSupport

/// The contract's response bodies, byte for byte (compact JSON, keys in the contract's order).
public enum IngestResponse {
    /// 200: `{"accepted":A,"duplicates":D,"rejected":[{"index":I,"event_id":"…"|null,"error":"code","message":"…"}]}`.
    public static func accepted(_ outcome: WriteOutcome, rejected: [Rejection]) -> [UInt8] {
        var w = JSONWriter(reservingCapacity: 48 + rejected.count * 160)
        w.beginObject()
        w.member("accepted", outcome.accepted)
        w.member("duplicates", outcome.duplicates)
        w.key("rejected")
        w.beginArray()
        for rejection in rejected {
            w.beginObject()
            w.member("index", rejection.index)
            w.member("event_id", rejection.eventID)
            w.member("error", rejection.code.rawValue)
            w.member("message", rejection.message)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }

    /// Every non-200 answer: `{"error":"code","message":"…"}`.
    public static func error(code: String, message: String) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.member("error", code)
        w.member("message", message)
        w.endObject()
        return w.bytes
    }

    /// The body for a whole-request failure.
    public static func error(_ envelopeError: EnvelopeError) -> [UInt8] {
        error(code: envelopeError.code, message: envelopeError.message)
    }
}
