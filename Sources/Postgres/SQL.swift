/// A SQL statement whose interpolated values become `$n` binds — string-built SQL with values
/// is impossible by construction. Raw text needs the visible opt-in `\(unsafeRaw: …)` or
/// `SQL(unsafeRaw:)`.
///
///     try connection.query("select * from sends where app_id = \(app) and sent_at >= \(from)")
public struct SQL: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    enum Part: Sendable {
        case text(String)
        case bind(Int)
    }

    /// A bound value (nil = NULL) with its type, in text format unless `binary`. `problem`: why
    /// the value could not be encoded; the statement then refuses to run.
    struct Bind: Sendable {
        var type: PostgresType
        var text: [UInt8]?
        var binary = false
        var problem: String?
    }

    var parts: [Part] = []
    var binds: [Bind] = []

    public init(stringLiteral value: String) { parts = [.text(value)] }

    /// Raw SQL text, without binds: only for text the program itself owns (e.g. a file in sql/).
    public init(unsafeRaw text: String) { parts = [.text(text)] }

    public init(stringInterpolation: StringInterpolation) { self = stringInterpolation.sql }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = SQL(unsafeRaw: "")

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.parts.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) { sql.parts.append(.text(literal)) }

        /// A value, sent as a bind.
        public mutating func appendInterpolation<T: PostgresEncodable>(_ value: T) {
            var text: [UInt8] = []
            value.encodePostgresText(into: &text)
            sql.appendBind(Bind(type: T.postgresType, text: text))
        }

        /// An optional value, sent as a bind (NULL when nil) typed by its wrapped type.
        public mutating func appendInterpolation<T: PostgresEncodable>(_ value: T?) {
            guard let value else { return sql.appendBind(Bind(type: T.postgresType, text: nil)) }
            appendInterpolation(value)
        }

        /// Rows of a composite type, sent as one array value in binary format.
        public mutating func appendInterpolation(_ records: RecordArray) {
            sql.appendBind(
                Bind(
                    type: PostgresType(rawValue: records.type.arrayOID), text: records.bytes, binary: true,
                    problem: records.problem))
        }

        /// Another statement fragment; its binds are renumbered.
        public mutating func appendInterpolation(_ fragment: SQL) { sql.append(fragment) }

        /// Raw text spliced into the statement. Never pass user input.
        public mutating func appendInterpolation(unsafeRaw text: String) { sql.parts.append(.text(text)) }

        /// An identifier (table, column), quoted so it can't break out of its place.
        public mutating func appendInterpolation(identifier: String) {
            sql.parts.append(.text(SQL.quoteIdentifier(identifier)))
        }
    }

    mutating func appendBind(_ bind: Bind) {
        binds.append(bind)
        parts.append(.bind(binds.count))
    }

    /// Appends a fragment, renumbering its binds after this statement's.
    public mutating func append(_ fragment: SQL) {
        let offset = binds.count
        binds.append(contentsOf: fragment.binds)
        for part in fragment.parts {
            switch part {
            case .text(let text): parts.append(.text(text))
            case .bind(let n): parts.append(.bind(n + offset))
            }
        }
    }

    /// The statement text with `$n` placeholders, as sent to the server.
    public var text: String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .bind(let n): out += "$\(n)"
            }
        }
        return out
    }

    public var description: String { text }

    /// `"name"` with embedded quotes doubled.
    public static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
