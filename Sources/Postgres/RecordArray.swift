/// Rows of a composite type as one array value in text format, `{"(…,…)","(…,…)"}`: many rows
/// in one bind of a statement, which casts it (`$1::some_type[]`) and reads it with `unnest`.
/// Every present field is quoted, so any text survives both levels of quoting; nil is NULL.
public struct RecordArray: PostgresEncodable, Sendable {
    /// The statement gives the type with its cast.
    public static var postgresType: PostgresType { .unknown }

    private var body: [UInt8] = []
    /// Rows appended so far.
    public private(set) var count = 0

    public init() {}

    /// Appends one row, its fields in the composite type's attribute order.
    public mutating func append(_ fields: [(any PostgresEncodable)?]) {
        if count > 0 { body.append(Byte.comma) }
        body.append(Byte.quote)
        body.append(Byte.open)
        for (i, field) in fields.enumerated() {
            if i > 0 { body.append(Byte.comma) }
            guard let field else { continue }
            // The field's own quotes, escaped once for the array around the record.
            body.append(Byte.backslash)
            body.append(Byte.quote)
            let start = body.count
            field.encodePostgresText(into: &body)
            if body[start...].contains(where: Self.needsEscape) {
                let text = Array(body[start...])
                body.removeSubrange(start...)
                // A quote or backslash is escaped for the record, and that escape and the byte
                // again for the array: `"` becomes `\\\"`.
                for byte in text {
                    if Self.needsEscape(byte) {
                        body.append(contentsOf: [Byte.backslash, Byte.backslash, Byte.backslash])
                    }
                    body.append(byte)
                }
            }
            body.append(Byte.backslash)
            body.append(Byte.quote)
        }
        body.append(Byte.close)
        body.append(Byte.quote)
        count += 1
    }

    public func encodePostgresText(into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        buffer.append(contentsOf: body)
        buffer.append(UInt8(ascii: "}"))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool { byte == Byte.quote || byte == Byte.backslash }

    private enum Byte {
        static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        static let open = UInt8(ascii: "("), close = UInt8(ascii: ")")
    }
}
