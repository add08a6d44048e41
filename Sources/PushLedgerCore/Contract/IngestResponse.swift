/// The contract's response bodies, byte for byte (compact JSON, keys in the contract's order).
public enum IngestResponse {
    /// 200: `{"accepted":A,"duplicates":D,"rejected":[{"index":I,"event_id":"…"|null,"error":"code","message":"…"}]}`.
    public static func accepted(_ outcome: WriteOutcome, rejected: [Rejection]) -> [UInt8] {
        var w = JSONWriter(reservingCapacity: 48 + rejected.count * 160)
        w.beginObject()
        w.key("accepted")
        w.int(outcome.accepted)
        w.key("duplicates")
        w.int(outcome.duplicates)
        w.key("rejected")
        w.beginArray()
        for rejection in rejected {
            w.beginObject()
            w.key("index")
            w.int(rejection.index)
            w.key("event_id")
            w.optionalString(rejection.eventID)
            w.key("error")
            w.string(rejection.code.rawValue)
            w.key("message")
            w.string(rejection.message)
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
        w.key("error")
        w.string(code)
        w.key("message")
        w.string(message)
        w.endObject()
        return w.bytes
    }

    /// The body for a whole-request failure.
    public static func error(_ envelopeError: EnvelopeError) -> [UInt8] {
        error(code: envelopeError.code, message: envelopeError.message)
    }
}
