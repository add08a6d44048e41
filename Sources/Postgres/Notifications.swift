import CLibPQ
import Glibc

extension Connection {
    /// Starts listening on `channel` (a plain identifier): later `NOTIFY`s on it, by any
    /// session of the same database, arrive through `waitForNotifications`.
    public func listen(_ channel: String) throws(PostgresError) {
        guard !channel.isEmpty, channel.allSatisfy({ $0 == "_" || $0.isASCII && $0.isLetter || $0.isNumber }) else {
            throw PostgresError(code: .misuse, message: "a channel is a plain identifier: \(channel)")
        }
        try executeScript("LISTEN \(channel)")
    }

    /// The channels notified since the last call, waiting up to `timeout` when none has
    /// arrived yet; empty when the time ran out. A broken connection throws `.connectionLost`,
    /// so a caller that must not miss a change knows to reconnect and read afresh.
    public func waitForNotifications(timeout: Duration) throws(PostgresError) -> [String] {
        var channels = try takeNotifications()
        guard channels.isEmpty else { return channels }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw lostError(query: nil) }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let (seconds, attoseconds) = timeout.components
        let milliseconds = Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        let ready = poll(&descriptor, 1, milliseconds)
        guard ready != 0 else { return [] }
        if ready < 0, errno == EINTR { return [] }
        channels = try takeNotifications(consume: true)
        return channels
    }

    /// Reads what the server sent (when `consume`) and takes the notifications libpq holds.
    private func takeNotifications(consume: Bool = false) throws(PostgresError) -> [String] {
        if consume, PQconsumeInput(handle) == 0 { throw lostError(query: nil) }
        guard isHealthy else { throw lostError(query: nil) }
        var channels: [String] = []
        while let notification = PQnotifies(handle) {
            channels.append(String(cString: notification.pointee.relname))
            PQfreemem(notification)
        }
        return channels
    }
}
