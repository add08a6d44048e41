import CLibPQ

/// Writes rows of a `COPY … FROM STDIN` in text format, escaping backslash, tab, CR and LF
/// inside values and sending NULL as `\N`. Data goes to the server in chunks as rows come.
public struct CopyWriter {
    let connection: Connection
    var buffer: [UInt8] = []
    var failure: PostgresError?
    /// Rows written so far.
    public private(set) var rowCount = 0
    private let flushThreshold = 256 * 1024

    init(connection: Connection) {
        self.connection = connection
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    /// Appends one row; nil values are NULL.
    public mutating func row(_ values: [(any PostgresEncodable)?]) {
        for (i, value) in values.enumerated() {
            if i > 0 { buffer.append(UInt8(ascii: "\t")) }
            guard let value else {
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(UInt8(ascii: "N"))
                continue
            }
            // Encoded in place; only a value holding a byte to escape is copied out and back.
            let start = buffer.count
            value.encodePostgresText(into: &buffer)
            if buffer[start...].contains(where: CopyWriter.needsEscape) {
                let field = Array(buffer[start...])
                buffer.removeSubrange(start...)
                CopyWriter.escape(field, into: &buffer)
            }
        }
        buffer.append(UInt8(ascii: "\n"))
        rowCount += 1
        if buffer.count >= flushThreshold { flush() }
    }

    /// COPY text escaping of one field value.
    public static func escape(_ field: [UInt8], into out: inout [UInt8]) {
        // Most values hold nothing to escape: one copy instead of a byte at a time.
        guard field.contains(where: needsEscape) else {
            out.append(contentsOf: field)
            return
        }
        for byte in field {
            if let letter = escapeLetter(byte) {
                out.append(UInt8(ascii: "\\"))
                out.append(letter)
            } else {
                out.append(byte)
            }
        }
    }

    /// The letter after the backslash that stands for `byte` in COPY text, nil for a byte as is.
    static func escapeLetter(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\\"): UInt8(ascii: "\\")
        case UInt8(ascii: "\t"): UInt8(ascii: "t")
        case UInt8(ascii: "\n"): UInt8(ascii: "n")
        case UInt8(ascii: "\r"): UInt8(ascii: "r")
        default: nil
        }
    }

    static func needsEscape(_ byte: UInt8) -> Bool { escapeLetter(byte) != nil }

    mutating func flush() {
        guard failure == nil, !buffer.isEmpty else {
            buffer.removeAll(keepingCapacity: true)
            return
        }
        let sent = buffer.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                PQputCopyData(connection.handle, $0.baseAddress, Int32($0.count))
            }
        }
        if sent != 1 { failure = connection.lostError(query: "COPY") }
        buffer.removeAll(keepingCapacity: true)
    }
}

extension Connection {
    /// Streams rows into `table` with COPY FROM STDIN and returns how many the server took.
    /// If `write` throws, the COPY is aborted (nothing is stored) and the error rethrown; a row
    /// the server refuses fails the whole COPY with its SQLSTATE (e.g. 22P02).
    @discardableResult
    public func copyIn(table: String, columns: [String], _ write: (inout CopyWriter) throws -> Void) throws -> Int {
        let statement =
            """
            COPY \(SQL.quoteIdentifier(table)) (\(columns.map(SQL.quoteIdentifier).joined(separator: ", "))) FROM \
            STDIN
            """
        guard let start = PQexec(handle, statement) else { throw lostError(query: statement) }
        let status = PQresultStatus(start)
        if status != PGRES_COPY_IN {
            defer { PQclear(start) }
            throw serverError(start, query: statement, code: .copy)
        }
        PQclear(start)

        var writer = CopyWriter(connection: self)
        var callerError: Error?
        do { try write(&writer) } catch { callerError = error }
        if callerError == nil { writer.flush() }
        let abortMessage = callerError.map { _ in "aborted by client" } ?? writer.failure.map { _ in "send failed" }
        let ended = abortMessage.map { PQputCopyEnd(handle, $0) } ?? PQputCopyEnd(handle, nil)

        // Drain every result so the connection is ready for the next statement.
        var serverFailure: PostgresError?
        while let result = PQgetResult(handle) {
            if PQresultStatus(result) != PGRES_COMMAND_OK, serverFailure == nil {
                serverFailure = serverError(result, query: statement, code: .copy)
            }
            PQclear(result)
        }
        if let callerError { throw callerError }
        if let failure = writer.failure { throw failure }
        if ended != 1 { throw lostError(query: statement) }
        if let serverFailure { throw serverFailure }
        return writer.rowCount
    }
}
