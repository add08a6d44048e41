import Foundation
import Synchronization
import TestSupport

/// A TCP relay in front of Postgres that a test can cut and restore: a real outage for the
/// server's libpq connections (reset sockets, refused logins) without stopping the cluster.
final class TCPProxy: Sendable {
    let port: UInt16
    private let listener: Int32
    private let targetPort: UInt16
    private let state = Mutex<(cut: Bool, sockets: Set<Int32>, closed: Bool)>((false, [], false))

    init(targetPort: UInt16) throws {
        self.targetPort = targetPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw RawHTTPError(description: "proxy: cannot listen") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: actual.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    deinit {
        state.withLock { $0.closed = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        cut()
    }

    /// Resets every relayed connection and refuses new ones until `restore`.
    func cut() {
        // Under the lock: a relay closes its sockets only after taking them out of the set.
        state.withLock { state in
            state.cut = true
            for socket in state.sockets { shutdown(socket, Int32(SHUT_RDWR)) }
            state.sockets = []
        }
    }

    func restore() { state.withLock { $0.cut = false } }

    /// `url` with its port replaced by the proxy's.
    func url(for url: String) -> String {
        var parts = URLComponents(string: url)!
        parts.port = Int(port)
        return parts.string!
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if state.withLock({ $0.closed }) { return }
                continue
            }
            if state.withLock({ $0.cut }) {
                close(client)
                continue
            }
            guard let server = try? RawHTTPConnection.connectSocket(port: targetPort) else {
                close(client)
                continue
            }
            state.withLock { $0.sockets.formUnion([client, server]) }
            Thread { [self] in relay(client, server) }.start()
        }
    }

    /// Copies bytes both ways until either side closes (or `cut` shuts them down).
    private func relay(_ a: Int32, _ b: Int32) {
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        loop: while poll(&fds, 2, -1) > 0 {
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let count = recv(entry.fd, &buffer, buffer.count, 0)
                guard count > 0, send(fds[1 - index].fd, buffer, count, Int32(MSG_NOSIGNAL)) == count else {
                    break loop
                }
            }
        }
        state.withLock { $0.sockets.subtract([a, b]) }
        close(a)
        close(b)
    }
}
