import Foundation
import Postgres
import PushLedgerSupport

/// The ingest server's test keys: every harness database holds them (the hashes of these
/// secrets), and the unit suites load them into a key verifier.
public enum TestKeys {
    public static let telemetry = "pl_t_telemetry-key-of-the-shop-app-0123456789"
    public static let sends = "pl_s_sends-key-of-the-shop-app-0123456789abc"
    public static let revoked = "pl_t_revoked-key-of-the-shop-app-0123456789"
    public static let otherApp = "pl_t_telemetry-key-of-the-other-app-01234567"

    /// (secret, app, scope, revoked)
    public static let all: [(String, String, String, Bool)] = [
        (telemetry, Fixtures.app, "telemetry", false), (sends, Fixtures.app, "sends", false),
        (revoked, Fixtures.app, "telemetry", true), (otherApp, Fixtures.otherApp, "telemetry", false),
    ]

    /// Inserts the keys the way `pushledger keys create` stores them: SHA-256 only.
    public static func insert(into connection: Connection) throws {
        for (secret, app, scope, revoked) in all {
            try connection.execute(
                """
                insert into api_keys (id, app_id, scope, key_hash, key_prefix, revoked_at)
                values (\(UUID()), \(app), \(scope), \(SHA256.hash(secret)), \(String(secret.prefix(8))),
                        case when \(revoked) then now() end)
                """)
        }
    }
}
