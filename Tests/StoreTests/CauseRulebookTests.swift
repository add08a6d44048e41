import Foundation
import Postgres
import PushLedgerContract
import PushLedgerRules
import TestSupport
import Testing

/// The cause and latency cases of Tests/Fixtures/outcome-rules.json (metrics.md "Why a send is
/// unconfirmed", "Delivery latency"). Times are microseconds after the send, which is sent 30 h
/// before as_of.
struct CauseBook: Decodable {
    struct Life: Decodable {
        var type: String
        var at_us: Int64
        var received_us: Int64?
        var event_id: UUID?
        var notification: String?
        var force_stopped: Bool?
    }
    struct Attempt: Decodable {
        var notification: String
        var provider: String
        var collapse_id: String?
        var at_us: Int64
        var status: Int?
        var installation: String?
    }
    struct Case: Decodable, CustomTestStringConvertible {
        var name: String
        var provider: String?
        var collapse_id: String?
        var expires_us: Int64?
        var instrumented: Bool?
        var outcome: SendOutcome?
        var life: [Life]
        var attempts: [Attempt]?
        var cause: UnconfirmedCause
        var testDescription: String { name }
        var sendProvider: String { provider ?? "fcm" }
        var platform: Platform { sendProvider == "apns" ? .ios : .android }
    }
    struct Receipt: Decodable {
        var kind: String
        var at_us: Int64
        var displayed: Bool?
    }
    struct LatencyCase: Decodable, CustomTestStringConvertible {
        var name: String
        var receipts: [Receipt]
        var outcome: SendOutcome
        var bucket: LatencyBucket
        var testDescription: String { name }
    }
    var causes: [Case]
    var latency: [LatencyCase]

    static let shared: CauseBook = {
        let url = TestDatabase.repositoryRoot.appendingPathComponent("Tests/Fixtures/outcome-rules.json")
        return try! JSONDecoder().decode(CauseBook.self, from: Data(contentsOf: url))
    }()
    static let sentAt = Rulebook.time(hoursAgo: 30)
    static func date(_ us: Int64) -> Date { sentAt.addingTimeInterval(Double(us) / 1_000_000) }
    /// The notification ids a case names ("self" is the send's own), the same in Swift and SQL.
    static func notification(_ name: String, own: UUID, names: inout [String: UUID]) -> UUID {
        if name == "self" { return own }
        if let id = names[name] { return id }
        let id = UUID()
        names[name] = id
        return id
    }
}

@Suite("The cause and latency rulebook: Swift rules and the SQL engine pass one truth table")
struct CauseRulebookTests {
    static let book = CauseBook.shared

    @Test func theTableCoversEveryCauseAndBucket() {
        #expect(Set(Self.book.causes.map(\.cause)) == Set(UnconfirmedCause.allCases))
        #expect(Set(Self.book.latency.map(\.bucket)) == Set(LatencyBucket.allCases))
    }

    @Test(arguments: book.causes)
    func swiftRules(_ c: CauseBook.Case) {
        let own = UUID()
        var names: [String: UUID] = [:]
        let life = c.life.map { l -> SignOfLife in
            let kind: SignOfLife.Kind =
                switch l.type {
                case "received", "opened":
                    .receipt(notificationID: CauseBook.notification(l.notification ?? "other", own: own, names: &names))
                case "settings": .settings(forceStoppedBeforeStart: l.force_stopped)
                default: .other
                }
            return SignOfLife(
                kind: kind, at: CauseBook.date(l.at_us), receivedAt: CauseBook.date(l.received_us ?? l.at_us),
                eventID: l.event_id ?? UUID())
        }
        let attempts = (c.attempts ?? []).filter { ($0.installation ?? "same") == "same" }.map { a in
            InstallationAttempt(
                notificationID: CauseBook.notification(a.notification, own: own, names: &names), provider: a.provider,
                collapseID: a.collapse_id, sentAt: CauseBook.date(a.at_us), status: a.status ?? 200)
        }
        let cause = CauseRules.cause(
            notificationID: own, provider: c.sendProvider, collapseID: c.collapse_id,
            expiresAt: c.expires_us.map(CauseBook.date),
            sentAt: CauseBook.sentAt, life: life, attempts: attempts, asOf: Rulebook.asOf)
        #expect(cause == c.cause)
    }

    @Test(arguments: book.latency)
    func swiftLatency(_ c: CauseBook.LatencyCase) {
        let first = c.receipts.map { CauseBook.date($0.at_us) }.filter { $0 <= Rulebook.asOf }.min()
        #expect(first.map { LatencyBucket.of(sentAt: CauseBook.sentAt, firstReceiptAt: $0) } == c.bucket)
    }

    @Test func percentilesAreNearestRankInIntegers() {
        // 0.9 · 10 = 9 exactly: the 9th smallest, not the 10th.
        let counts: [LatencyBucket: Int] = [.lt10s: 9, .ge24h: 1]
        #expect(LatencyBucket.percentile(perMille: 900, counts: counts) == .lt10s)
        #expect(LatencyBucket.percentile(perMille: 990, counts: counts) == .ge24h)
        #expect(LatencyBucket.percentile(perMille: 500, counts: [.lt1h: 1, .lt6h: 1]) == .lt1h)
        #expect(LatencyBucket.percentile(perMille: 500, counts: [:]) == nil)
    }

    /// Each case in its own app; the set-based engine and the per-send path of the refresh both
    /// judge the send.
    @Test func sqlEngine() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "causes"))
        var sends:
            [(
                app: String, event: UUID, cause: UnconfirmedCause?, outcome: SendOutcome, bucket: LatencyBucket?,
                name: String
            )] = []
        for (n, c) in Self.book.causes.enumerated() {
            let app = "cause-\(n)"
            let event = try CauseRows.insert(c, app: app, on: connection)
            sends.append((app, event, c.cause, c.outcome ?? .unconfirmed, nil, c.name))
        }
        for (n, c) in Self.book.latency.enumerated() {
            let app = "latency-\(n)"
            let event = try CauseRows.insertLatency(c, app: app, on: connection)
            sends.append((app, event, nil, c.outcome, c.bucket, c.name))
        }
        try Self.prepareBothPaths(connection, asOf: Rulebook.asOf)
        for s in sends {
            for (path, row) in try Self.judgeOnBothPaths(
                app: s.app, event: s.event, from: Rulebook.time(hoursAgo: 72), to: Rulebook.time(hoursAgo: -1),
                asOf: Rulebook.asOf, on: connection)
            {
                #expect(try row.decode("outcome", as: String.self) == s.outcome.rawValue, "\(path): \(s.name)")
                #expect(try row.decode("cause", as: String?.self) == s.cause?.rawValue, "\(path): \(s.name)")
                #expect(try row.decode("latency_bucket", as: String?.self) == s.bucket?.rawValue, "\(path): \(s.name)")
            }
        }
    }

    /// The set-based engine searches a week past its window for first signs of life; a send
    /// whose first one comes later (or never) looks it up alone, with the per-send path's answer.
    @Test func aFirstSignOfLifeAWeekAfterTheWindowIsLookedUpAlone() throws {
        let connection = try Connection.connect(url: try TestDatabase.fresh(prefix: "causelate"))
        let day: Int64 = 86_400_000_000
        let hour: Int64 = 3_600_000_000
        let asOf = CauseBook.date(10 * day)
        // The window is the send's hour, so the engine's range read ends 7 days 1 hour after the send.
        let cases: [(life: String, cause: UnconfirmedCause, firstUs: Int64?)] = [
            ("", .deviceInactive, nil),
            (#"{"type": "settings", "at_us": \#(9 * day)}"#, .expired, 9 * day),
            (#"{"type": "settings", "at_us": \#(9 * day), "force_stopped": true}"#, .appStopped, 9 * day),
            (
                #"{"type": "prompt", "at_us": \#(2 * day)}, {"type": "settings", "at_us": \#(9 * day)}"#, .expired,
                2 * day
            ),
            (#"{"type": "push_token", "at_us": \#(7 * day + hour)}"#, .expired, 7 * day + hour),
            (#"{"type": "push_token", "at_us": \#(7 * day + hour + 1)}"#, .expired, 7 * day + hour + 1),
            // Two events past the span: the earlier one is the first sign of life.
            (
                #"{"type": "settings", "at_us": \#(9 * day), "force_stopped": true}, "#
                    + #"{"type": "push_token", "at_us": \#(8 * day)}"#, .expired, 8 * day
            ),
        ]
        for (n, c) in cases.enumerated() {
            let cause = c.cause.rawValue
            let json = #"{"name": "late \#(n)", "expires_us": \#(hour), "life": [\#(c.life)], "cause": "\#(cause)"}"#
            let app = "late-\(n)"
            let event = try CauseRows.insert(
                JSONDecoder().decode(CauseBook.Case.self, from: Data(json.utf8)), app: app, on: connection)
            try Self.prepareBothPaths(connection, asOf: asOf)
            for (path, row) in try Self.judgeOnBothPaths(
                app: app, event: event, from: CauseBook.date(-hour), to: CauseBook.date(hour), asOf: asOf,
                on: connection)
            {
                #expect(try row.decode("outcome", as: String.self) == SendOutcome.unconfirmed.rawValue, "\(path): \(n)")
                #expect(try row.decode("cause", as: String?.self) == c.cause.rawValue, "\(path): \(n)")
                let sentUs = Int64(CauseBook.sentAt.timeIntervalSince1970) * 1_000_000
                #expect(
                    try row.decode("first_life_us", as: Int64?.self) == c.firstUs.map { sentUs + $0 }, "\(path): \(n)")
            }
        }
    }

    /// The per-send path's inputs: its send set and the instrumented slices as of `asOf`.
    static func prepareBothPaths(_ connection: Connection, asOf: Date) throws {
        try connection.execute(
            """
            create temp table if not exists rollup_send_set (
                app_id text, sent_at timestamptz, event_id uuid, scope smallint)
            """)
        try connection.execute("truncate instrumented_slices_daily")
        try connection.execute(
            """
            insert into instrumented_slices_daily (app_id, day, platform, app_version)
            select distinct app_id, pushledger_day(occurred_at), platform, app_version from notification_receipts
             where occurred_at <= \(asOf)
            """)
    }

    /// One send classified by the set-based engine over [from, to) and by the per-send path, as of `asOf`.
    static func judgeOnBothPaths(
        app: String, event: UUID, from: Date, to: Date, asOf: Date, on connection: Connection
    ) throws -> [(String, Row)] {
        let columns: SQL =
            "outcome, cause, latency_bucket, (extract(epoch from first_life_at) * 1000000)::bigint as first_life_us"
        let engine = try connection.query(
            """
            select \(columns) from pushledger_classified_sends(\(app), \(from), \(to), \(asOf), '24 hours'::interval)
             where event_id = \(event)
            """)
        try connection.execute("truncate rollup_send_set")
        try connection.execute(
            """
            insert into rollup_send_set select app_id, sent_at, event_id, 2 from sends
             where app_id = \(app) and event_id = \(event)
            """)
        let perSend = try connection.query(
            "select \(columns) from pushledger_classify_send_set(\(asOf), '24 hours'::interval)")
        #expect(engine.count == 1 && perSend.count == 1, "one row on each path for \(app)")
        return (engine.prefix(1).map { ("engine", $0) }) + perSend.prefix(1).map { ("per send", $0) }
    }
}

/// The rows of one cause or latency case: the installation, a displayable snapshot an hour
/// before the send, the send, the installation's later telemetry and the app's other attempts,
/// and a receipt of another installation in the same slice (instrumented, and no sign of life of
/// this one).
enum CauseRows {
    /// A time `us` microseconds after the send, computed by the server (exact to the microsecond).
    static func at(_ us: Int64) -> SQL { "(\(CauseBook.sentAt)::timestamptz + \(Int(us)) * interval '1 microsecond')" }

    static func insert(_ c: CauseBook.Case, app: String, on connection: Connection) throws -> UUID {
        let installation = UUID()
        let own = UUID()
        var names: [String: UUID] = [:]
        let event = try base(
            app: app, installation: installation, notification: own, provider: c.sendProvider,
            collapseID: c.collapse_id, expiresUs: c.expires_us, instrumented: c.instrumented ?? true, on: connection)
        let platform = c.platform.rawValue
        for l in c.life {
            let at = CauseRows.at(l.at_us)
            let received = CauseRows.at(l.received_us ?? l.at_us)
            let id = l.event_id ?? UUID()
            switch l.type {
            case "settings":
                try connection.execute(
                    """
                    insert into settings_snapshots (app_id, event_id, installation_id, platform, authorization_status,
                        notifications_enabled, force_stopped_before_start, at, occurred_at, received_at)
                    values (\(app), \(id), \(installation), \(platform), \(c.platform == .ios ? "authorized" : nil),
                            \(c.platform == .android ? true : nil), \(l.force_stopped), \(at), \(at), \(received))
                    """)
            case "received", "opened":
                let notification = CauseBook.notification(l.notification ?? "other", own: own, names: &names)
                try connection.execute(
                    (l.type == "opened"
                        ? """
                        insert into notification_opens (app_id, event_id, installation_id, platform, notification_id, \
                        action,
                                                        at, occurred_at, received_at)
                        values (\(app), \(id), \(installation), \(platform), \(notification), 'default', \(at), \(at), \
                        \(received))
                        """
                        : """
                        insert into notification_receipts (app_id, event_id, installation_id, platform, \
                        notification_id, displayed,
                                                           at, occurred_at, received_at)
                        values (\(app), \(id), \(installation), \(platform), \(notification), true, \(at), \(at), \
                        \(received))
                        """))
            case "prompt":
                try connection.execute(
                    """
                    insert into permission_prompts (app_id, event_id, installation_id, platform, placement, prompt, \
                    result,
                                                    at, occurred_at, received_at)
                    values (\(app), \(id), \(installation), \(platform), 'settings_banner', 'primer', 'granted', \
                    \(at), \(at), \(received))
                    """)
            case "exposure":
                try connection.execute(
                    """
                    insert into experiment_exposures (app_id, event_id, installation_id, platform, experiment, variant,
                                                      at, occurred_at, received_at)
                    values (\(app), \(id), \(installation), \(platform), 'push_prompt_timing', 'early', \(at), \(at), \
                    \(received))
                    """)
            case "push_token":
                try connection.execute(
                    """
                    insert into token_registrations (app_id, event_id, installation_id, platform, provider, token,
                                                     at, occurred_at, received_at)
                    values (\(app), \(id), \(installation), \(platform), \(c.sendProvider), 'token', \(at), \(at), \
                    \(received))
                    """)
            default:
                Issue.record("unknown life type \(l.type) in \(c.name)")
            }
        }
        for a in c.attempts ?? [] {
            let notification = CauseBook.notification(a.notification, own: own, names: &names)
            let target = (a.installation ?? "same") == "same" ? installation : UUID()
            let at = CauseRows.at(a.at_us)
            try connection.execute(
                """
                insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by, \
                channel,
                                   sent_at, status, collapse_id, received_at)
                values (\(app), \(UUID()), \(notification), \(a.provider), 'token', \(target), 'explicit', 'orders',
                        \(at), \(a.status ?? 200), \(a.collapse_id), \(at))
                """)
        }
        return event
    }

    static func insertLatency(_ c: CauseBook.LatencyCase, app: String, on connection: Connection) throws -> UUID {
        let installation = UUID()
        let own = UUID()
        let event = try base(
            app: app, installation: installation, notification: own, provider: "fcm", collapseID: nil,
            expiresUs: nil, instrumented: true, on: connection)
        for r in c.receipts {
            let at = CauseRows.at(r.at_us)
            try connection.execute(
                (r.kind == "opened"
                    ? """
                    insert into notification_opens (app_id, event_id, installation_id, platform, notification_id, \
                    action,
                                                    at, occurred_at, received_at)
                    values (\(app), \(UUID()), \(installation), 'android', \(own), 'default', \(at), \(at), \(at))
                    """
                    : """
                    insert into notification_receipts (app_id, event_id, installation_id, platform, notification_id, \
                    displayed,
                                                       at, occurred_at, received_at)
                    values (\(app), \(UUID()), \(installation), 'android', \(own), \(r.displayed), \(at), \(at), \(at))
                    """))
        }
        return event
    }

    /// The installation, its snapshot an hour before the send, the send, and the slice's
    /// instrumenting receipt (of another installation and notification).
    static func base(
        app: String, installation: UUID, notification: UUID, provider: String, collapseID: String?, expiresUs: Int64?,
        instrumented: Bool, on connection: Connection
    ) throws -> UUID {
        let platform = provider == "apns" ? "ios" : "android"
        let sentAt = CauseBook.sentAt
        let before = sentAt.addingTimeInterval(-3_600)
        try connection.execute(
            """
            insert into installations (app_id, installation_id, platform, first_seen_at, last_seen_at, last_received_at)
            values (\(app), \(installation), \(platform), \(before), \(before), \(before))
            """)
        try connection.execute(
            """
            insert into settings_snapshots (app_id, event_id, installation_id, platform, authorization_status,
                notifications_enabled, at, occurred_at, received_at)
            values (\(app), \(UUID()), \(installation), \(platform), \(platform == "ios" ? "authorized" : nil),
                    \(platform == "android" ? true : nil), \(before), \(before), \(before))
            """)
        let event = UUID()
        let expires: SQL = expiresUs.map(at) ?? "null"
        try connection.execute(
            """
            insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by, \
            channel,
                               sent_at, status, collapse_id, expires_at, received_at)
            values (\(app), \(event), \(notification), \(provider), 'token', \(installation), 'explicit', 'orders',
                    \(sentAt), 200, \(collapseID), \(expires), \(sentAt))
            """)
        if instrumented {
            let at = sentAt.addingTimeInterval(1_800)
            try connection.execute(
                """
                insert into notification_receipts (app_id, event_id, installation_id, platform, notification_id, \
                displayed,
                                                   at, occurred_at, received_at)
                values (\(app), \(UUID()), \(UUID()), \(platform), \(UUID()), true, \(at), \(at), \(at))
                """)
        }
        return event
    }
}
