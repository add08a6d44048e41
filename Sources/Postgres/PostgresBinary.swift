import Foundation

// Binary format (the server's *_recv functions), for the fields of a composite sent in a
// binary array (RecordArray): no quoting or escaping on either side, and no text parsing in
// the server.

extension PostgresEncodable {
    /// By default a value goes into a text field as its text, and into no other.
    public func encodePostgresBinary(as type: PostgresType, into buffer: inout [UInt8]) -> Bool {
        guard type == .text else { return false }
        encodePostgresText(into: &buffer)
        return true
    }
}

@usableFromInline func appendBigEndian<T: FixedWidthInteger>(_ value: T, into buffer: inout [UInt8]) {
    withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
}

extension PostgresEncodable where Self: BinaryInteger {
    /// An integer goes into a field of any integer type it fits, or a text field.
    public func encodePostgresBinary(as type: PostgresType, into buffer: inout [UInt8]) -> Bool {
        switch type {
        case .int2:
            guard let v = Int16(exactly: self) else { return false }
            appendBigEndian(v, into: &buffer)
        case .int4:
            guard let v = Int32(exactly: self) else { return false }
            appendBigEndian(v, into: &buffer)
        case .int8:
            guard let v = Int64(exactly: self) else { return false }
            appendBigEndian(v, into: &buffer)
        case .text: appendDecimal(self, into: &buffer)
        default: return false
        }
        return true
    }
}

extension Double {
    public func encodePostgresBinary(as type: PostgresType, into buffer: inout [UInt8]) -> Bool {
        guard type == .float8 else { return false }
        appendBigEndian(bitPattern, into: &buffer)
        return true
    }
}

extension Bool {
    public func encodePostgresBinary(as type: PostgresType, into buffer: inout [UInt8]) -> Bool {
        guard type == .bool else { return false }
        buffer.append(self ? 1 : 0)
        return true
    }
}

extension UUID {
    public func encodePostgresBinary(as type: PostgresType, into buffer: inout [UInt8]) -> Bool {
        guard type == .uuid else { return false }
        withUnsafeBytes(of: uuid) { buffer.append(contentsOf: $0) }
        return true
    }
}

extension Date {
    /// Microseconds from 2000-01-01 UTC, PostgreSQL's epoch; ±infinity as its sentinels.
    public func encodePostgresBinary(as type: PostgresType, into buffer: inout [UInt8]) -> Bool {
        guard type == .timestamptz else { return false }
        let micros: Int64
        switch self {
        case .distantFuture: micros = .max
        case .distantPast: micros = .min
        default: micros = microsecondsSince1970 - 946_684_800_000_000
        }
        appendBigEndian(micros, into: &buffer)
        return true
    }
}

extension Array where Element == UInt8 {
    public func encodePostgresBinary(as type: PostgresType, into buffer: inout [UInt8]) -> Bool {
        guard type == .bytea else { return false }
        buffer.append(contentsOf: self)
        return true
    }
}

/// A composite type as the binary format needs it: its OID, its array type's, and its
/// attributes' types in order (looked up by ``Connection/recordType(_:)``).
public struct RecordType: Sendable, Equatable {
    public let name: String
    public let oid: UInt32
    public let arrayOID: UInt32
    public let attributes: [PostgresType]

    public init(name: String, oid: UInt32, arrayOID: UInt32, attributes: [PostgresType]) {
        (self.name, self.oid, self.arrayOID, self.attributes) = (name, oid, arrayOID, attributes)
    }
}

extension Connection {
    /// The composite type `name` (as the search path finds it). Throws `.misuse` when there is
    /// none of that name.
    public func recordType(_ name: String) throws(PostgresError) -> RecordType {
        let rows = try query(
            """
            select t.oid::int8 as oid, t.typarray::int8 as array, a.atttypid::int8 as attribute
              from pg_type t join pg_attribute a on a.attrelid = t.typrelid
             where t.oid = to_regtype(\(name)) and t.typtype = 'c' and a.attnum > 0 and not a.attisdropped
             order by a.attnum
            """)
        guard let first = rows.first else {
            throw PostgresError(code: .misuse, message: "no composite type named \(name)")
        }
        func oid(_ row: Row, _ column: String) throws(PostgresError) -> UInt32 {
            UInt32(try row.decode(column, as: Int64.self))
        }
        var attributes: [PostgresType] = []
        for row in rows { attributes.append(PostgresType(rawValue: try oid(row, "attribute"))) }
        return RecordType(
            name: name, oid: try oid(first, "oid"), arrayOID: try oid(first, "array"), attributes: attributes)
    }
}
