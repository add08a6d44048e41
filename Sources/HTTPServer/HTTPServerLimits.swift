/// How much an `HTTPListener` takes on: threads, connections and the deadlines that keep slow
/// or hostile clients from holding them. The worst case in memory is written out in
/// docs/reliability.md ("Memory bound").
public struct HTTPServerLimits: Sendable {
    /// libmicrohttpd polling threads (thread pool size).
    public var threads = 4
    /// Open connections at most; more are refused by libmicrohttpd.
    public var connectionLimit = 256
    /// libmicrohttpd memory pool per connection (headers and read buffer; bodies are copied out).
    /// libmicrohttpd's own default: it zeroes the whole pool between the requests of a
    /// connection, so a larger pool costs every small request (128 KiB was 14 % of the server's
    /// CPU on phone-sized requests, docs/performance.md).
    public var connectionMemoryLimit = 32 << 10
    /// Idle seconds before a connection is closed (not counting time suspended for a commit).
    public var requestTimeoutSeconds = 30
    /// Seconds a request body may take to arrive in all. A client that trickles a byte now and
    /// then never goes idle, so without this it would hold its connection for as long as it likes.
    public var uploadDeadlineSeconds = 60
    /// Seconds a new connection may take to send its first request's headers in all, however
    /// busily it trickles them (libmicrohttpd's timeout is idle-only). Later requests on a
    /// kept-alive connection get `requestTimeoutSeconds` from the previous answer.
    public var headerDeadlineSeconds = 5
    /// Open connections from one client address at most (carrier NAT puts many phones behind one).
    public var perAddressConnectionLimit = 64
    /// Request bodies arriving at once from one client address at most; past it 429 before the
    /// body is read. Behind a proxy every upload comes from the proxy: raise it with
    /// `perAddressConnectionLimit`.
    public var perAddressUploadLimit = 32

    public init() {}
}
