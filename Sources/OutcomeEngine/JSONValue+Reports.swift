import PushLedgerSupport

// Reports (and the engine's summaries) promise explicit nulls: a rate with a zero denominator
// and an absent dimension value are `null` in JSON, never a missing key.
extension JSONValue {
    /// A number, or null when nil (or not finite).
    package static func number(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
    /// An object from (key, value) pairs built up in code, in order.
    package static func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }
    /// A string, or null when nil.
    package static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}
