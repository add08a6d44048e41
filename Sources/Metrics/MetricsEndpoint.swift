import Foundation
import HTTPServer

/// A plain-HTTP listener that answers `GET /metrics` with what `render` returns (Prometheus
/// text) and `GET /healthz` with "ok", for processes other than the ingest server, such as
/// `pushledger rollup --follow --metrics-listen`. One thread: scrapes are rare and cheap.
public final class MetricsEndpoint: Sendable {
    private let daemon: HTTPDaemon

    /// Binds `host:port` (port 0: any free port) and starts answering.
    public init(host: String, port: UInt16, render: @escaping @Sendable () -> String) throws(HTTPServerError) {
        var limits = HTTPServerLimits()
        limits.threads = 1
        limits.connectionLimit = 32
        limits.perAddressConnectionLimit = 16
        daemon = HTTPDaemon(handler: MetricsHandler(render: render))
        try daemon.start(host: host, port: port, limits: limits)
    }

    /// The bound port.
    public var port: UInt16 { daemon.port }

    public func stop() { daemon.stop() }
}

private final class MetricsHandler: HTTPHandler {
    let render: @Sendable () -> String
    static let notFound = HTTPResponse.content(404, "no such endpoint\n", type: "text/plain; charset=utf-8")

    init(render: @escaping @Sendable () -> String) {
        self.render = render
    }

    func decide(_ head: RequestHead) -> HeadDecision {
        guard ["/metrics", "/healthz"].contains(head.path) else { return .respond(Self.notFound) }
        guard head.method == "GET" || head.method == "HEAD" else {
            return .respond(
                HTTPResponse.content(405, "use GET or HEAD\n", type: "text/plain; charset=utf-8").adding(
                    "Allow", "GET, HEAD"))
        }
        return .respond(
            head.path == "/healthz"
                ? .content(200, "ok\n", type: "text/plain; charset=utf-8")
                : .content(200, render(), type: Prometheus.contentType))
    }

    func bodyTooLarge(_ head: RequestHead) -> HTTPResponse { Self.notFound }

    func handle(_ head: RequestHead, body: [UInt8], context: any Sendable, reply: ReplySlot) {
        reply.send(Self.notFound)
    }

    func responded(_ head: RequestHead, status: Int) {}

    func commonHeaders(_ head: RequestHead) -> [(name: String, value: String)] { [] }

    func tooManyUploads(_ head: RequestHead) -> HTTPResponse {
        HTTPResponse.content(429, "too many requests\n", type: "text/plain; charset=utf-8")
    }
}
