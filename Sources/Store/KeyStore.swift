import Foundation
import Postgres
import PushLedgerSupport

/// What an API key may do: one endpoint each (docs/contract.md, Authentication).
public enum KeyScope: String, Sendable, CaseIterable, Codable {
    case telemetry, sends

    /// The letter after `pl_` in a secret, so a leaked key shows its scope at a glance.
    public var letter: Character { self == .telemetry ? "t" : "s" }
}

/// A key's optional rate limit: `eventsPerSecond` on average, up to `burst` events at once
/// (a token bucket the server keeps in memory per key).
public struct KeyRateLimit: Sendable, Equatable {
    public var eventsPerSecond: Double
    public var burst: Int

    /// Nil unless both are positive; `burst` defaults to one second's events (at least 1).
    public init?(eventsPerSecond: Double, burst: Int? = nil) {
        let burst = burst ?? max(1, Int(eventsPerSecond.rounded(.up)))
        guard eventsPerSecond > 0, eventsPerSecond.isFinite, burst > 0 else { return nil }
        self.eventsPerSecond = eventsPerSecond
        self.burst = burst
    }
}

/// An API key as listed: never its secret, which is shown once at creation.
public struct APIKey: Sendable, Equatable {
    public var id: UUID
    public var appID: String
    public var scope: KeyScope
    /// The secret's first characters, for telling keys apart.
    public var prefix: String
    public var createdAt: Date
    public var revokedAt: Date?
    /// After this the server answers 401 `key_expired`; nil: never.
    public var expiresAt: Date?
    /// The last request it authenticated, as the server flushed it (up to a minute behind).
    public var lastUsedAt: Date?
    /// Nil: no limit of its own (the app's queue share still applies).
    public var rateLimit: KeyRateLimit?
}

/// A key the server accepts: it hashes a presented secret and compares in memory.
public struct ActiveKey: Sendable, Equatable {
    public var id: UUID
    public var appID: String
    public var scope: KeyScope
    /// SHA-256 of the secret's UTF-8 bytes.
    public var hash: [UInt8]
    public var expiresAt: Date?
    public var rateLimit: KeyRateLimit?
}

/// Failures of key management that are the caller's input, not the database.
public struct KeyStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}

/// API keys in the `api_keys` table: created with a random secret stored only as its SHA-256.
public struct KeyStore: Sendable {
    /// Characters after the `pl_` + scope letter: 43 url-safe characters carry 258 random bits.
    public static let secretLength = 43
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    static let prefixLength = 12
    /// The `NOTIFY` channel on which every change of `api_keys` is announced as it commits
    /// (sql/keys/changes.sql): running servers listen and read the keys again at once.
    public static let changesChannel = "pushledger_keys"

    public init() {}

    /// A new secret: `pl_` + scope letter + 43 url-safe random characters.
    public static func makeSecret<R: RandomNumberGenerator>(scope: KeyScope, using generator: inout R) -> String {
        var secret = "pl_" + String(scope.letter)
        for _ in 0..<secretLength {
            // 64 divides 2^64: modulo gives every character the same chance.
            secret.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
        }
        return secret
    }

    /// Creates a key for `app`, valid for `lifetime` when given; returns its id and the secret
    /// (the only time it is seen).
    public func create(
        app: String, scope: KeyScope, lifetime: TimeSpan? = nil, rateLimit: KeyRateLimit? = nil,
        on connection: Connection
    ) throws -> (id: UUID, secret: String) {
        guard !app.isEmpty, app.count <= 255 else {
            throw KeyStoreError(description: "an app id of 1 to 255 characters is required")
        }
        var generator = SystemRandomNumberGenerator()
        let secret = Self.makeSecret(scope: scope, using: &generator)
        let id = UUID()
        let prefix = String(secret.prefix(Self.prefixLength))
        try connection.execute(
            """
            insert into api_keys (id, app_id, scope, key_hash, key_prefix, expires_at, rate_per_second, rate_burst)
            values (\(id), \(app), \(scope.rawValue), \(SHA256.hash(secret)), \(prefix),
                    now() + make_interval(secs => \(lifetime.map { Int64($0.seconds) })),
                    \(rateLimit?.eventsPerSecond), \(rateLimit.map { Int64($0.burst) }))
            """)
        return (id, secret)
    }

    /// Rotation without downtime: a new key for the app and scope of `id`, with `id` kept valid
    /// for `overlap` more (never longer than it already was), so senders switch over while
    /// both work. The new key gets `lifetime` when given, and the old key's rate limit. Nil
    /// when no active key has this id.
    public func rotate(
        id: UUID, overlap: TimeSpan, lifetime: TimeSpan? = nil, on connection: Connection
    ) throws -> (id: UUID, secret: String)? {
        try connection.transaction { connection in
            let rows = try connection.query(
                """
                update api_keys
                   set expires_at = least(coalesce(expires_at, 'infinity'), now() + make_interval(secs => \
                \(Int64(overlap.seconds))))
                 where id = \(id) and revoked_at is null and (expires_at is null or expires_at > now())
                returning app_id, scope, rate_per_second, rate_burst
                """)
            guard let row = rows.first else { return nil }
            // The new key keeps the old one's rate limit: rotating must not lift it.
            let rate: Double? = try row.decode("rate_per_second"), burst: Int? = try row.decode("rate_burst")
            let limit = rate.flatMap { KeyRateLimit(eventsPerSecond: $0, burst: burst) }
            return try create(
                app: try row.decode("app_id"), scope: try Self.scope(row), lifetime: lifetime, rateLimit: limit,
                on: connection)
        }
    }

    /// Sets (or with nil removes) a key's rate limit; false when no key has this id. Running
    /// servers apply it at once, like every key change.
    @discardableResult
    public func setRateLimit(id: UUID, _ limit: KeyRateLimit?, on connection: Connection) throws -> Bool {
        try connection.execute(
            """
            update api_keys set rate_per_second = \(limit?.eventsPerSecond), rate_burst = \
            \(limit.map { Int64($0.burst) })
             where id = \(id) and revoked_at is null
            """) == 1
    }

    /// Stores when keys were last used (the server's coarse flush); never moves a time back.
    public func recordUse(_ uses: [(id: UUID, at: Date)], on connection: Connection) throws {
        guard !uses.isEmpty else { return }
        // One short statement a key: a flush touches only the keys used in the last minute.
        try connection.transaction { connection in
            for use in uses {
                try connection.execute(
                    "update api_keys set last_used_at = greatest(last_used_at, \(use.at)) where id = \(use.id)")
            }
        }
    }

    /// Every key (or one app's), newest first, revoked ones included.
    public func list(app: String? = nil, on connection: Connection) throws -> [APIKey] {
        let rows = try connection.query(
            """
            select id, app_id, scope, key_prefix, created_at, revoked_at, expires_at, last_used_at, rate_per_second, \
            rate_burst
              from api_keys
             where \(app) :: text is null or app_id = \(app)
             order by created_at desc, id
            """)
        return try rows.map { row in
            APIKey(
                id: try row.decode("id"), appID: try row.decode("app_id"), scope: try Self.scope(row),
                prefix: try row.decode("key_prefix"), createdAt: try row.decode("created_at"),
                revokedAt: try row.decode("revoked_at"), expiresAt: try row.decode("expires_at"),
                lastUsedAt: try row.decode("last_used_at"), rateLimit: try Self.rateLimit(row))
        }
    }

    /// Revokes a key; false when no active key has this id.
    @discardableResult
    public func revoke(id: UUID, on connection: Connection) throws -> Bool {
        try connection.execute("update api_keys set revoked_at = now() where id = \(id) and revoked_at is null") == 1
    }

    /// The keys not revoked, expired ones included so the server can say `key_expired`.
    public func loadActiveKeys(on connection: Connection) throws -> [ActiveKey] {
        // expires_at is read through jsonb: a server started before `migrate` added the column
        // keeps working (its keys never expire) instead of refusing every request.
        let rows = try connection.query(
            """
            select id, app_id, scope, key_hash, (to_jsonb(k) ->> 'expires_at')::timestamptz as expires_at,
                   (to_jsonb(k) ->> 'rate_per_second')::float8 as rate_per_second, (to_jsonb(k) ->> \
            'rate_burst')::int8 as rate_burst
              from api_keys k where revoked_at is null order by id
            """)
        return try rows.map { row in
            ActiveKey(
                id: try row.decode("id"), appID: try row.decode("app_id"), scope: try Self.scope(row),
                hash: try row.decode("key_hash"), expiresAt: try row.decode("expires_at"),
                rateLimit: try Self.rateLimit(row))
        }
    }

    private static func rateLimit(_ row: Row) throws -> KeyRateLimit? {
        let rate: Double? = try row.decode("rate_per_second")
        let burst: Int64? = try row.decode("rate_burst")
        return rate.flatMap { KeyRateLimit(eventsPerSecond: $0, burst: burst.map { Int($0) }) }
    }

    private static func scope(_ row: Row) throws -> KeyScope {
        let text: String = try row.decode("scope")
        guard let scope = KeyScope(rawValue: text) else {
            throw PostgresError(code: .decoding, message: "unknown key scope \(text)")
        }
        return scope
    }
}
