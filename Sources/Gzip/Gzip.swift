import CZlib

/// gzip (RFC 1952) on zlib, with a hard cap on decompressed size so a gzip bomb costs
/// at most `limit` bytes of memory.
public enum Gzip {
    /// Why a body could not be decompressed.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The decompressed body would be larger than the limit.
        case tooLarge(limit: Int)
        /// Not gzip, corrupt, or cut short.
        case corrupt(String)

        public var description: String {
            switch self {
            case .tooLarge(let limit): "decompressed body exceeds \(limit) bytes"
            case .corrupt(let why): "invalid gzip data: \(why)"
            }
        }
    }

    /// Compresses `bytes` into one gzip member.
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16 selects the gzip wrapper.
        let initStatus = deflateInit2_(
            &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)
        )
        precondition(initStatus == Z_OK, "deflateInit2 failed: \(initStatus)")
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        var input = bytes
        let produced = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = uInt(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = uInt(outBuf.count)
                let status = deflate(&stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflate did not finish: \(status)")
                return outBuf.count - Int(stream.avail_out)
            }
        }
        output.removeSubrange(produced...)
        return output
    }

    /// Decompresses a gzip body (concatenated members included), failing as soon as the
    /// output would pass `limit` bytes.
    public static func decompress(_ bytes: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        guard !bytes.isEmpty else { throw .corrupt("empty body") }
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .corrupt("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, max(bytes.count * 4, 4096)))
        // Sized to the body: a phone's request of a few hundred bytes would otherwise pay for
        // zeroing 64 KiB (a tenth of the server's CPU on such requests).
        var chunk = [UInt8](repeating: 0, count: min(64 * 1024, max(4 * 1024, bytes.count * 8)))
        var failure: Failure?
        bytes.withUnsafeBufferPointer { inBuf in
            // zlib reads next_in only; its C type is not const.
            stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
            stream.avail_in = uInt(inBuf.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { outBuf -> (Int32, Int) in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = uInt(outBuf.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, outBuf.count - Int(stream.avail_out))
                }
                if output.count + produced > limit {
                    failure = .tooLarge(limit: limit)
                    return
                }
                output.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_STREAM_END:
                    // Another member may follow (RFC 1952 allows concatenation).
                    if stream.avail_in == 0 { return }
                    inflateReset(&stream)
                case Z_OK:
                    if stream.avail_in == 0 && produced == 0 {
                        failure = .corrupt("data is cut short")
                        return
                    }
                case Z_BUF_ERROR:
                    if stream.avail_in == 0 {
                        failure = .corrupt("data is cut short")
                        return
                    }
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                    failure = .corrupt(message)
                    return
                }
            }
        }
        if let failure { throw failure }
        return output
    }
}
