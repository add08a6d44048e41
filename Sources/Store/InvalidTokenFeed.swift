import Foundation
import Postgres
import PushLedgerContract
import PushLedgerSupport

/// The invalid-token feed (`GET /v1/tokens/invalid`, `pushledger tokens invalid`): the tokens
/// of one app a sender should stop pushing to, read from `token_invalidations`
/// (sql/migrations/0002_sender_loop.sql, kept by the writer: sql/writer/invalidations.sql).
///
/// Paging walks feed positions (the id of the transaction that made the token invalid), not
/// `invalidated_at`: sends arrive late, so a token can become invalid with an `invalidated_at`
/// older than tokens already served, and an order by time would put it behind the sender's
/// cursor. A walk serves positions below a horizon fixed on its first page (the oldest
/// transaction still running then), so nothing can later appear behind the cursor and a token
/// is served at most once per walk; tokens invalidated after the horizon are served by the
/// next walk, which the last page's cursor starts.
public struct InvalidTokenFeed: Sendable {
    public init() {}

    /// Default and largest page size.
    public static let defaultLimit = 1_000
    public static let limitRange = 1...10_000

    /// One token invalid now.
    public struct Token: Sendable, Equatable {
        public var provider: String
        public var token: String
        public var invalidatedAt: Date
        public var status: Int
        public var reason: String?
        public var unregisteredAt: Date?
        public var installationID: UUID?
    }

    /// One page; `nextCursor` is always given: a page shorter than the limit ends the walk and
    /// its cursor starts the next poll.
    public struct Page: Sendable, Equatable {
        public var tokens: [Token]
        public var nextCursor: String
    }

    /// Where a walk stands: after the position (xid, provider, token_key), below `horizon`
    /// (nil: the walk is over, the next request fixes a new horizon), with the walk's `since`.
    public struct Cursor: Sendable, Equatable {
        var horizon: UInt64?
        var afterXID: UInt64
        var afterProvider: String
        var afterKey: UUID
        var since: Int64?

        static let start = Cursor(
            horizon: nil, afterXID: 0, afterProvider: "",
            afterKey: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!, since: nil)

        /// `f1.<horizon or ->.<xid>.<provider or ->.<token key>.<since µs or ->`: opaque to senders.
        var text: String {
            [
                "f1", horizon.map(String.init) ?? "-", String(afterXID), afterProvider.isEmpty ? "-" : afterProvider,
                afterKey.uuidString.lowercased(), since.map(String.init) ?? "-",
            ].joined(separator: ".")
        }

        init(horizon: UInt64?, afterXID: UInt64, afterProvider: String, afterKey: UUID, since: Int64?) {
            self.horizon = horizon
            self.afterXID = afterXID
            self.afterProvider = afterProvider
            self.afterKey = afterKey
            self.since = since
        }

        init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 6, parts[0] == "f1", let xid = UInt64(parts[2]), let key = UUID(uuidString: parts[4]),
                ["-", "apns", "fcm"].contains(parts[3])
            else { return nil }
            let horizon = parts[1] == "-" ? nil : UInt64(parts[1])
            let since = parts[5] == "-" ? nil : Int64(parts[5])
            guard (parts[1] == "-") == (horizon == nil), (parts[5] == "-") == (since == nil) else { return nil }
            self.init(
                horizon: horizon, afterXID: xid, afterProvider: parts[3] == "-" ? "" : parts[3], afterKey: key,
                since: since)
        }
    }

    /// A request's parameters, as checked by `parse`.
    public struct Query: Sendable, Equatable {
        public var since: Date?
        public var limit: Int
        var cursor: Cursor

        /// Checks `since` (RFC 3339), `limit` (1–10,000) and `cursor`; the message is safe to
        /// show. A cursor keeps the `since` of its walk unless `since` is given again.
        public static func parse(since: String?, limit: String?, cursor: String?) -> Result<Query, QueryError> {
            var parsed = Query(since: nil, limit: defaultLimit, cursor: .start)
            if let cursor {
                guard let decoded = Cursor(cursor) else {
                    return .failure(QueryError("cursor is not one this server gave out"))
                }
                parsed.cursor = decoded
            }
            if let since {
                guard let micros = RFC3339.microseconds(since) else {
                    return .failure(QueryError("since must be an RFC 3339 time such as 2026-11-30T10:00:00Z"))
                }
                parsed.cursor.since = micros
            }
            parsed.since = parsed.cursor.since.map(RFC3339.date(microseconds:))
            if let limit {
                guard let n = Int(limit), limitRange.contains(n) else {
                    return .failure(QueryError("limit must be an integer from 1 to 10000"))
                }
                parsed.limit = n
            }
            return .success(parsed)
        }
    }

    public struct QueryError: Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// One page of `appID`'s feed.
    public func page(appID: String, query: Query, on connection: Connection) throws -> Page {
        var cursor = query.cursor
        let horizon: UInt64
        if let fixed = cursor.horizon {
            horizon = fixed
        } else {
            let text = try connection.query("select pushledger_invalid_tokens_horizon()::text as h")[0].decode(
                "h", as: String.self)
            horizon = UInt64(text) ?? 0
        }
        let rows = try connection.query(
            """
            select provider, token, invalidated_at, status, reason, unregistered_at, installation_id,
                   feed_xid::text as feed_xid, token_key
              from pushledger_invalid_tokens(\(appID), \(query.since), \(String(cursor.afterXID))::xid8,
                                             \(cursor.afterProvider), \(cursor.afterKey), \(String(horizon))::xid8, \
            \(query.limit)::integer)
            """)
        var tokens: [Token] = []
        tokens.reserveCapacity(rows.count)
        for row in rows {
            tokens.append(
                Token(
                    provider: try row.decode("provider"), token: try row.decode("token"),
                    invalidatedAt: try row.decode("invalidated_at"), status: try row.decode("status"),
                    reason: try row.decode("reason"), unregisteredAt: try row.decode("unregistered_at"),
                    installationID: try row.decode("installation_id")))
        }
        if tokens.count == query.limit, let last = rows.last {
            cursor.horizon = horizon
            cursor.afterXID = UInt64(try last.decode("feed_xid", as: String.self)) ?? cursor.afterXID
            cursor.afterProvider = try last.decode("provider")
            cursor.afterKey = try last.decode("token_key")
        } else {
            // Everything below the horizon has been seen: the next walk starts there.
            cursor = Cursor(
                horizon: nil, afterXID: max(horizon, cursor.afterXID), afterProvider: "",
                afterKey: Cursor.start.afterKey, since: cursor.since)
        }
        return Page(tokens: tokens, nextCursor: cursor.text)
    }

    /// Every page of a walk from `query` (the command line's read: the same rows as the API).
    public func all(appID: String, query: Query, on connection: Connection) throws -> [Token] {
        var query = query
        var tokens: [Token] = []
        while true {
            let page = try page(appID: appID, query: query, on: connection)
            tokens += page.tokens
            guard page.tokens.count == query.limit, let next = Cursor(page.nextCursor) else { return tokens }
            query.cursor = next
        }
    }
}

extension InvalidTokenFeed.Token {
    /// The API's object for this token (telemetry-v1.md).
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.member("provider", provider)
        w.member("token", token)
        w.member("invalidated_at", Timestamp.rfc3339(invalidatedAt))
        w.member("status", status)
        w.member("reason", reason)
        w.member("unregistered_at", unregisteredAt.map(Timestamp.rfc3339))
        w.member("installation_id", installationID?.uuidString.lowercased())
        w.endObject()
    }

    /// `"tokens":[…]` inside an object being written.
    public static func writeMember(_ tokens: [Self], to w: inout JSONWriter) {
        w.key("tokens")
        w.beginArray()
        for token in tokens { token.write(to: &w) }
        w.endArray()
    }
}

extension InvalidTokenFeed.Page {
    /// `{"tokens":[…],"next_cursor":"…"}`.
    public var json: [UInt8] {
        var w = JSONWriter(reservingCapacity: 64 + tokens.count * 200)
        w.beginObject()
        InvalidTokenFeed.Token.writeMember(tokens, to: &w)
        w.member("next_cursor", nextCursor)
        w.endObject()
        return w.bytes
    }
}
