import Postgres

/// A session of its own that hears every change of the key table (`KeyStore.changesChannel`)
/// as it commits, on the database that holds the keys (the directory database when sharded).
/// Not `Sendable`: one thread opens it and waits on it.
public final class KeyChangeListener {
    private let connection: Connection

    /// Connects and starts listening; changes committed from now on are heard.
    public init(url: String) throws(PostgresError) {
        connection = try Connection.connect(url: url)
        try connection.listen(KeyStore.changesChannel)
    }

    /// True when keys changed since the last call, waiting up to `timeout` for a change.
    /// Throws when the session is lost: changes may have been missed, so read the keys afresh
    /// after reconnecting.
    public func waitForChange(timeout: Duration) throws(PostgresError) -> Bool {
        try !connection.waitForNotifications(timeout: timeout).isEmpty
    }

    /// The session's server process, so tests can end it as a network cut would.
    public var backendPID: Int { connection.backendPID }
}
