import CMicroHTTPD
import Foundation
import Synchronization

/// An error starting the HTTP listener.
public struct HTTPServerError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}

/// libmicrohttpd in internal-thread mode (poll) with a thread pool, suspend/resume and ITC (for
/// quiesce), plain HTTP or TLS (GnuTLS). A certificate reload runs a `successor` on the same
/// listening socket and `retire`s this one (see `HTTPListener`).
///
/// C callbacks are plain `@convention(c)` globals; they find this object and the per-request
/// `RequestContext` through the `cls` / `con_cls` pointers.
public final class HTTPDaemon: @unchecked Sendable {
    private let handler: any HTTPHandler
    /// Set once in `start`, cleared in `stop`; read by `stop`/`quiesce` only (one caller).
    nonisolated(unsafe) private var daemon: OpaquePointer?
    nonisolated(unsafe) private var listenSocket: Int32 = -1
    /// The listen socket MHD handed back at `quiesce`: shut down at once, closed in `stop`.
    nonisolated(unsafe) private var quiescedSocket: Int32 = -1
    /// Requests between their first access-handler call and `NOTIFY_COMPLETED`.
    private let inFlight = Atomic<Int>(0)
    /// Connections between libmicrohttpd's STARTED and CLOSED notifications.
    fileprivate let connections = Atomic<Int>(0)
    /// Settings and TLS strings of `start`, kept for `successor` and freed in `stop`.
    nonisolated(unsafe) private var limits: HTTPServerLimits?
    nonisolated(unsafe) private var tlsStrings: [UnsafeMutablePointer<CChar>] = []
    /// Set by `quiesce`: every answer closes its connection, so keep-alive clients leave.
    private let closing = Atomic<Bool>(false)
    /// The bound port (useful with port 0).
    public private(set) var port: UInt16 = 0
    /// Time a request body may take to arrive; set in `start`, before any request.
    nonisolated(unsafe) private var uploadTime: Duration = .seconds(60)
    /// Header deadlines and shedding; set in `start`, before any connection.
    nonisolated(unsafe) private(set) var guardian: ConnectionGuard?
    nonisolated(unsafe) private var reaper: PeriodicTask?

    /// libmicrohttpd's version, for the build-info metric.
    public static var libraryVersion: String { String(cString: MHD_get_version()) }

    public init(handler: any HTTPHandler) {
        self.handler = handler
    }

    public var requestsInFlight: Int { inFlight.load(ordering: .acquiring) }
    public var openConnections: Int { connections.load(ordering: .acquiring) }

    /// Binds, listens and starts the polling threads; HTTPS when `tls` is given.
    public func start(
        host: String, port: UInt16, limits: HTTPServerLimits, tls: TLSCredentials? = nil
    ) throws(HTTPServerError) {
        let (socket, boundPort) = try Self.listen(host: host, port: port)
        // Shed below the daemon's limit, so a new connection is accepted rather than refused.
        let limit = max(1, limits.connectionLimit)
        let guardian = ConnectionGuard(
            headerDeadline: .seconds(max(1, limits.headerDeadlineSeconds)),
            keepAliveDeadline: .seconds(max(1, limits.requestTimeoutSeconds)),
            shedThreshold: limit - max(1, limit / 16), uploadDeadline: .seconds(max(1, limits.uploadDeadlineSeconds)),
            uploadsPerAddress: max(1, limits.perAddressUploadLimit))
        do {
            try start(socket: socket, port: boundPort, limits: limits, tls: tls, guardian: guardian)
        } catch {
            close(socket)
            throw error
        }
    }

    /// A daemon on the same listening socket (a duplicate of it) with new credentials, sharing
    /// this one's connection guard. Once it runs, `retire` this one: the kernel hands new
    /// connections to whichever daemon accepts, so nothing waiting in the backlog is lost.
    func successor(tls: TLSCredentials) throws(HTTPServerError) -> HTTPDaemon {
        let socket = dup(listenSocket)
        guard listenSocket >= 0, socket >= 0, let guardian, let limits else {
            if socket >= 0 { close(socket) }
            throw HTTPServerError(description: "the listener is not running")
        }
        _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
        let next = HTTPDaemon(handler: handler)
        do {
            try next.start(socket: socket, port: port, limits: limits, tls: tls, guardian: guardian)
        } catch {
            close(socket)
            throw error
        }
        return next
    }

    private func start(
        socket: Int32, port: UInt16, limits: HTTPServerLimits, tls: TLSCredentials?, guardian: ConnectionGuard
    ) throws(HTTPServerError) {
        self.port = port
        self.limits = limits
        uploadTime = .seconds(max(1, limits.uploadDeadlineSeconds))
        let selfPointer = Unmanaged.passUnretained(self).toOpaque()
        self.guardian = guardian
        reaper = PeriodicTask(name: "pushledger-header-deadline", interval: 0.25) { guardian.reap() }
        tlsStrings = tls?.cStrings() ?? []
        var options: [MHD_OptionItem] =
            [
                MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(socket), ptr_value: nil),
                MHD_OptionItem(option: .THREAD_POOL_SIZE, value: max(1, limits.threads), ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: max(1, limits.connectionLimit), ptr_value: nil),
                MHD_OptionItem(
                    option: .PER_IP_CONNECTION_LIMIT, value: max(1, limits.perAddressConnectionLimit), ptr_value: nil),
                MHD_OptionItem(
                    option: .NOTIFY_CONNECTION, value: unsafeBitCast(connectionNotified, to: Int.self),
                    ptr_value: selfPointer),
                MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: limits.connectionMemoryLimit, ptr_value: nil),
                MHD_OptionItem(
                    option: .CONNECTION_TIMEOUT, value: max(0, limits.requestTimeoutSeconds), ptr_value: nil),
                MHD_OptionItem(
                    option: .NOTIFY_COMPLETED, value: unsafeBitCast(requestCompleted, to: Int.self),
                    ptr_value: selfPointer),
                MHD_OptionItem(
                    option: .UNESCAPE_CALLBACK, value: unsafeBitCast(unescape, to: Int.self), ptr_value: nil),
            ] + (tls == nil ? [] : TLSCredentials.options(tlsStrings)) + [
                MHD_OptionItem(option: .END, value: 0, ptr_value: nil)
            ]
        // poll(), not AUTO (epoll on Linux): with epoll, MHD_quiesce_daemon races a worker thread
        // that removes the listen socket from its epoll set at the same moment, and libmicrohttpd
        // 0.9.75 aborts the process ("Failed to remove listen FD from epoll set", daemon.c:5531):
        // a graceful stop under traffic could crash. Reproduced in 8 of 10 runs of 300 quiesces
        // under connection churn with epoll, 0 of 10 with poll; see HTTPDaemonTests.
        var flags = MHD_USE_POLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
        if tls != nil { flags |= MHD_USE_TLS.rawValue }
        let started = options.withUnsafeMutableBufferPointer { items in
            withVaList([MHD_OPTION.ARRAY.rawValue, items.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                MHD_start_daemon_va(flags, 0, nil, nil, accessHandler, selfPointer, arguments)
            }
        }
        guard let started else {
            reaper?.stop()
            releaseTLSStrings()
            throw HTTPServerError(description: "libmicrohttpd could not start on port \(port)")
        }
        daemon = started
        listenSocket = socket
    }

    /// Stops accepting new connections; open ones keep being served.
    func quiesce() {
        closing.store(true, ordering: .releasing)
        guard let daemon, listenSocket >= 0 else { return }
        let socket = MHD_quiesce_daemon(daemon)
        // Shut down, not closed: a worker may still be inside poll() with this descriptor, which
        // keeps a closed socket listening until poll returns, and once closed its number can be
        // reused by another socket before the worker has left it. shutdown() stops the listening
        // at once; the descriptor is closed in `stop`, after the workers are joined.
        if socket >= 0 {
            shutdown(socket, Int32(SHUT_RDWR))
            quiescedSocket = socket
        }
        listenSocket = -1
    }

    /// Stops accepting on the listening socket it shares with its successor (which keeps
    /// listening); open connections keep being served and close after their answer.
    func retire() {
        closing.store(true, ordering: .releasing)
        guard let daemon, listenSocket >= 0 else { return }
        quiescedSocket = MHD_quiesce_daemon(daemon)
        listenSocket = -1
    }

    /// Stops the polling threads and closes every connection. Call after in-flight requests
    /// are answered: suspended connections must be resumed first.
    public func stop() {
        guard let daemon else { return }
        if listenSocket >= 0 { quiesce() }
        MHD_stop_daemon(daemon)
        self.daemon = nil
        reaper?.stop()
        releaseTLSStrings()
        if quiescedSocket >= 0 {
            close(quiescedSocket)
            quiescedSocket = -1
        }
    }

    private func releaseTLSStrings() {
        for string in tlsStrings {
            memset(string, 0, strlen(string))  // the key's text does not outlive the daemon
            free(string)
        }
        tlsStrings = []
    }

    // MARK: - Callbacks (on libmicrohttpd threads)

    fileprivate func access(
        _ connection: OpaquePointer, url: String, method: String, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = conCls.pointee else {
            guardian?.headersReceived(Int(bitPattern: UnsafeRawPointer(connection)))
            let head = Self.readHead(connection, url: url, method: method)
            inFlight.add(1, ordering: .relaxed)
            let context = RequestContext(head: head, connection: connection)
            conCls.pointee = Unmanaged.passRetained(context).toOpaque()
            return begin(handler.decide(head), context, on: connection)
        }
        let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
        // Resumed with the decision a `later` made (or called again while still suspended).
        if context.isDeciding { return proceed(context, on: connection) }
        if uploadSize.pointee > 0 {
            let chunk = UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee)
            uploadSize.pointee = 0
            let result = context.append(chunk) { handler.bodyTooLarge(context.head) }
            return result == .abort ? .NO : .YES
        }
        let step = context.nextStep()
        if case .wait = step {} else { guardian?.uploadEnded(Int(bitPattern: UnsafeRawPointer(connection))) }
        switch step {
        case .handle(let body, let value):
            handler.handle(context.head, body: body, context: value, reply: context)
            guard let response = context.replyOrSuspend() else { return .YES }
            return queue(response, for: context, on: connection)
        case .respond(let response):
            return queue(response, for: context, on: connection)
        case .wait:
            return .YES
        }
    }

    /// Carries out a decision on a request whose headers are in.
    private func begin(_ decision: HeadDecision, _ context: RequestContext, on connection: OpaquePointer) -> MHD_Result
    {
        let head = context.head
        switch decision {
        case .respond(let response):
            context.answeredFromHeaders()
            return queue(response, for: context, on: connection)
        case .readBody(let limit, let value):
            if let length = head.contentLength, length > limit {
                context.answeredFromHeaders()
                return queue(handler.bodyTooLarge(head), for: context, on: connection)
            }
            guard guardian?.uploadStarting(Int(bitPattern: UnsafeRawPointer(connection))) ?? true else {
                context.answeredFromHeaders()
                return queue(handler.tooManyUploads(head), for: context, on: connection)
            }
            context.startReading(limit: limit, context: value, uploadTime: uploadTime)
            return .YES
        case .later(let start):
            start(context)
            return proceed(context, on: connection)
        }
    }

    /// Carries out the decision a `later` put in the slot, or leaves the connection suspended
    /// until it is there.
    private func proceed(_ context: RequestContext, on connection: OpaquePointer) -> MHD_Result {
        guard let decision = context.decisionOrSuspend() else { return .YES }
        if case .later = decision { return begin(.respond(HTTPResponse(status: 500)), context, on: connection) }
        return begin(decision, context, on: connection)
    }

    fileprivate func completed(_ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let pointer = conCls.pointee else { return }
        conCls.pointee = nil
        Unmanaged<RequestContext>.fromOpaque(pointer).release()
        inFlight.subtract(1, ordering: .releasing)
    }

    private func queue(
        _ response: HTTPResponse, for context: RequestContext, on connection: OpaquePointer
    ) -> MHD_Result {
        let result = response.body.withUnsafeBytes { bytes -> MHD_Result in
            guard
                let mhdResponse = MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            else { return .NO }
            defer { MHD_destroy_response(mhdResponse) }
            for header in response.headers + handler.commonHeaders(context.head) {
                _ = MHD_add_response_header(mhdResponse, header.name, header.value)
            }
            if closing.load(ordering: .acquiring) { _ = MHD_add_response_header(mhdResponse, "Connection", "close") }
            return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        }
        if result == .YES { handler.responded(context.head, status: response.status) }
        return result
    }

    private static func readHead(_ connection: OpaquePointer, url: String, method: String) -> RequestHead {
        func header(_ name: String) -> String? {
            MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
        }
        let length = header("Content-Length").flatMap { Int($0.trimmingHeaderWhitespace) }
        var head = RequestHead(
            method: method, path: url, contentType: header("Content-Type"), contentEncoding: header("Content-Encoding"),
            contentLength: length, authorization: header("Authorization"), peer: peerAddress(connection),
            forwardedFor: header("X-Forwarded-For"))
        if method == "GET" { head.query = queryArguments(connection) }
        head.dryRun = MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, "dry_run").map { String(cString: $0) }
        return head
    }

    /// The request's query-string arguments (libmicrohttpd has split and decoded them).
    private static func queryArguments(_ connection: OpaquePointer) -> [String: String] {
        let collected = QueryArguments()
        withExtendedLifetime(collected) {
            _ = MHD_get_connection_values(
                connection, .GET_ARGUMENT_KIND, collectArgument, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.arguments
    }

    private static func peerAddress(_ connection: OpaquePointer) -> String {
        let address = UInt32(bigEndian: pushledger_client_ipv4(connection))
        guard address != 0 else { return "" }
        return "\(address >> 24).\(address >> 16 & 255).\(address >> 8 & 255).\(address & 255)"
    }

    // MARK: - Listening socket

    /// A non-blocking listening socket bound to `host:port`, and the port it got.
    private static func listen(host: String, port: UInt16) throws(HTTPServerError) -> (Int32, UInt16) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw HTTPServerError(description: "listen address \(host) is not an IPv4 address")
        }
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw HTTPServerError(description: "socket(): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(socket, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw HTTPServerError(description: "cannot listen on \(host):\(port): \(reason)")
        }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return (socket, UInt16(bigEndian: actual.sin_port))
    }
}

/// `MHD_AccessHandlerCallback`: `cls` is the `HTTPDaemon`, `con_cls` the `RequestContext`.
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, upload, uploadSize, conCls in
    guard let cls, let connection, let uploadSize, let conCls else { return MHD_Result.NO }
    let daemon = Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
    return daemon.access(
        connection, url: url.map { String(cString: $0) } ?? "/", method: method.map { String(cString: $0) } ?? "",
        upload: upload, uploadSize: uploadSize, conCls: conCls)
}

/// `MHD_UnescapeCallback`: percent-decoding as libmicrohttpd does it, except that a text holding
/// `%00` stays as sent. Decoded, the NUL would cut the C string short, and
/// `/v1/telemetry%00anything` would reach `/v1/telemetry`; kept, it is an unknown path (404).
private let unescape: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = {
    _, _, text in
    guard let text else { return 0 }
    if strstr(text, "%00") != nil { return strlen(text) }
    return MHD_http_unescape(text)
}

/// `MHD_KeyValueIterator` for query arguments: `cls` is the dictionary box of `queryArguments`.
private let collectArgument: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return MHD_Result.YES }
    let collected = Unmanaged<QueryArguments>.fromOpaque(cls).takeUnretainedValue()
    collected.arguments[String(cString: key)] = value.map { String(cString: $0) } ?? ""
    return MHD_Result.YES
}

/// Filled by `collectArgument` during one `MHD_get_connection_values` call.
private final class QueryArguments {
    var arguments: [String: String] = [:]
}

/// `MHD_RequestCompletedCallback`: frees the request's context.
private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, conCls, _ in
    guard let cls, let conCls else { return }
    let daemon = Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
    if let connection { daemon.guardian?.answered(Int(bitPattern: UnsafeRawPointer(connection))) }
    daemon.completed(conCls)
}

/// `MHD_NotifyConnectionCallback`: connections opened and closed, for `ConnectionGuard`.
private let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let daemon = Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
    let id = Int(bitPattern: UnsafeRawPointer(connection))
    if code == MHD_ConnectionNotificationCode(rawValue: 0) {  // MHD_CONNECTION_NOTIFY_STARTED
        daemon.connections.add(1, ordering: .relaxed)
        daemon.guardian?.started(id, socket: pushledger_connection_socket(connection))
    } else {
        daemon.guardian?.closed(id)
        daemon.connections.subtract(1, ordering: .releasing)
    }
}
