/// Rows of a composite type as one array value in text format, `{"(…,…)","(…,…)"}`: many rows
/// in one bind of a statement, which casts it (`$1::some_type[]`) and reads it with `unnest`.
/// Every present field is quoted, so any text survives both levels of quoting; nil is NULL.
public struct RecordArray: PostgresEncodable, Sendable {
    /// The statement gives the type with its cast.
    public static var postgresType: PostgresType { .unknown }

    @usableFromInline var body: [UInt8] = []
    /// Rows appended so far.
    public var count: Int { rows }
    @usableFromInline var rows = 0

    public init() {}

    /// One row being written, its fields in the composite type's attribute order. Fields are
    /// encoded straight into the array's text as they come: a writer building thousands of rows
    /// a batch allocates no array and boxes no value per row.
    public struct Row {
        @usableFromInline var body: [UInt8]
        @usableFromInline var fields = 0

        @usableFromInline init(body: [UInt8]) { self.body = body }

        /// The next field: its text, or NULL for nil. Inlinable, so the caller's build specializes it.
        @inlinable public mutating func add<Value: PostgresEncodable>(_ value: Value?) {
            guard let value else { return addNull() }
            addValue(value)
        }

        /// The next field, of a type known only at run time.
        @inlinable public mutating func add(any value: (any PostgresEncodable)?) {
            guard let value else { return addNull() }
            addValue(value)  // opens the existential: the generic path
        }

        /// The next field NULL.
        @inlinable public mutating func addNull() { separate() }

        @inlinable mutating func addValue<Value: PostgresEncodable>(_ value: Value) {
            separate()
            // The field's own quotes, escaped once for the array around the record.
            body.append(Byte.backslash)
            body.append(Byte.quote)
            let start = body.count
            value.encodePostgresText(into: &body)
            if body[start...].contains(where: RecordArray.needsEscape) { escape(from: start) }
            body.append(Byte.backslash)
            body.append(Byte.quote)
        }

        @inlinable mutating func separate() {
            if fields > 0 { body.append(Byte.comma) }
            fields += 1
        }

        /// A quote or backslash is escaped for the record, and that escape and the byte again
        /// for the array: `"` becomes `\\\"`.
        @usableFromInline mutating func escape(from start: Int) {
            let text = Array(body[start...])
            body.removeSubrange(start...)
            for byte in text {
                if RecordArray.needsEscape(byte) {
                    body.append(contentsOf: [Byte.backslash, Byte.backslash, Byte.backslash])
                }
                body.append(byte)
            }
        }
    }

    /// Appends one row written by `fields`.
    @inlinable public mutating func appendRow(_ fields: (inout Row) -> Void) {
        if rows > 0 { body.append(Byte.comma) }
        body.append(Byte.quote)
        body.append(Byte.open)
        var row = Row(body: [])
        swap(&row.body, &body)  // the row writes into the array's buffer, not a copy of it
        fields(&row)
        swap(&row.body, &body)
        body.append(Byte.close)
        body.append(Byte.quote)
        rows += 1
    }

    /// Appends one row, its fields in the composite type's attribute order.
    public mutating func append(_ fields: [(any PostgresEncodable)?]) {
        appendRow { row in
            for field in fields { row.add(any: field) }
        }
    }

    public func encodePostgresText(into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        buffer.append(contentsOf: body)
        buffer.append(UInt8(ascii: "}"))
    }

    @usableFromInline static func needsEscape(_ byte: UInt8) -> Bool { byte == Byte.quote || byte == Byte.backslash }

    @usableFromInline enum Byte {
        @usableFromInline static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\"")
        @usableFromInline static let backslash = UInt8(ascii: "\\")
        @usableFromInline static let open = UInt8(ascii: "("), close = UInt8(ascii: ")")
    }
}
