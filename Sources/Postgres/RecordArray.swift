import Foundation

/// Rows of a composite type as one array in binary format, bound as one value of the type's
/// array type (`\(records)` in a ``SQL`` statement): thousands of rows in one parameter, with
/// nothing to quote or escape here and nothing to parse in the server.
public struct RecordArray: Sendable {
    /// The composite type of the rows.
    public let type: RecordType
    /// The elements so far, each its length and then the record.
    @usableFromInline var body: [UInt8] = []
    /// Rows appended so far.
    public var count: Int { rows }
    @usableFromInline var rows = 0
    /// The first field that could not be encoded (a type the composite's attribute is not, or
    /// too many or too few fields): a statement binding the array refuses to run.
    public var problem: String? { firstProblem }
    @usableFromInline var firstProblem: String?

    public init(of type: RecordType) { self.type = type }

    /// One row being written, its fields in the composite type's attribute order, each encoded
    /// straight into the array's buffer as it comes: no array and no boxed value per row.
    public struct Row {
        @usableFromInline var body: [UInt8]
        @usableFromInline let attributes: [PostgresType]
        @usableFromInline var fields = 0
        @usableFromInline var problem: String?

        @usableFromInline init(body: [UInt8], attributes: [PostgresType]) {
            (self.body, self.attributes) = (body, attributes)
        }

        /// The next field: its value, or NULL for nil. Inlinable, so the caller's build specializes it.
        @inlinable public mutating func add<Value: PostgresEncodable>(_ value: Value?) {
            guard let type = nextType() else { return }
            guard let value else { return appendNull() }
            addValue(value, as: type)
        }

        /// The next field, of a type known only at run time.
        @inlinable public mutating func add(any value: (any PostgresEncodable)?) {
            guard let type = nextType() else { return }
            guard let value else { return appendNull() }
            addValue(value, as: type)  // opens the existential: the generic path
        }

        /// The next field NULL.
        @inlinable public mutating func addNull() {
            guard nextType() != nil else { return }
            appendNull()
        }

        /// A NULL field's value: the length -1 and no bytes.
        @inlinable mutating func appendNull() { appendBigEndian(Int32(-1), into: &body) }

        /// The next attribute's type, its OID written; nil (and a problem) past the last one.
        @inlinable mutating func nextType() -> PostgresType? {
            guard fields < attributes.count else {
                problem = problem ?? "more fields than the type's \(attributes.count)"
                return nil
            }
            let type = attributes[fields]
            fields += 1
            appendBigEndian(type.rawValue, into: &body)
            return type
        }

        @inlinable mutating func addValue<Value: PostgresEncodable>(_ value: Value, as type: PostgresType) {
            let length = body.count
            appendBigEndian(Int32(0), into: &body)
            if !value.encodePostgresBinary(as: type, into: &body) {
                problem = problem ?? "field \(fields): a \(Value.self) cannot be a value of type OID \(type.rawValue)"
            }
            RecordArray.patchLength(&body, at: length)
        }
    }

    /// Appends one row written by `fields`.
    @inlinable public mutating func appendRow(_ fields: (inout Row) -> Void) {
        let length = body.count
        appendBigEndian(Int32(0), into: &body)
        appendBigEndian(Int32(type.attributes.count), into: &body)
        var row = Row(body: [], attributes: type.attributes)
        swap(&row.body, &body)  // the row writes into the array's buffer, not a copy of it
        fields(&row)
        swap(&row.body, &body)
        if row.fields < type.attributes.count {
            row.problem = row.problem ?? "\(row.fields) fields of the type's \(type.attributes.count)"
        }
        if let problem = row.problem, firstProblem == nil { firstProblem = "\(type.name) row \(rows + 1): \(problem)" }
        Self.patchLength(&body, at: length)
        rows += 1
    }

    /// Appends one row, its fields in the composite type's attribute order.
    public mutating func append(_ fields: [(any PostgresEncodable)?]) {
        appendRow { row in
            for field in fields { row.add(any: field) }
        }
    }

    /// The array in binary format (array_recv): one dimension of the rows, or none when empty.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + body.count)
        appendBigEndian(Int32(rows == 0 ? 0 : 1), into: &bytes)
        appendBigEndian(Int32(0), into: &bytes)  // no NULL element
        appendBigEndian(type.oid, into: &bytes)
        if rows > 0 {
            appendBigEndian(Int32(rows), into: &bytes)
            appendBigEndian(Int32(1), into: &bytes)  // lower bound
        }
        bytes.append(contentsOf: body)
        return bytes
    }

    /// Writes the length of what follows the 4 bytes at `start` into them.
    @usableFromInline static func patchLength(_ body: inout [UInt8], at start: Int) {
        let length = UInt32(body.count - start - 4).bigEndian
        withUnsafeBytes(of: length) { bytes in
            for i in 0..<4 { body[start + i] = bytes[i] }
        }
    }
}
