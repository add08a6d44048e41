import Foundation
import Postgres
import PushLedgerContract
import PushLedgerSupport
import Synchronization
import TestSupport
import Testing

/// `GET /v1/tokens/invalid` against an independent computation of telemetry-v1.md's definition,
/// paged with small limits while ingest runs.
@Suite(.serialized) struct InvalidTokenFeedTests {
    static let otherSendsKey = "pl_s_sends-key-of-the-other-app-0123456789a"

    /// A generated fleet: registrations and send results, with what each one means.
    struct Fleet {
        struct Registration {
            var installation: UUID
            var provider: String
            var token: String
            var at: Date
        }
        struct Result {
            var provider: String
            var token: String
            var installation: UUID?
            var sentAt: Date
            var status: Int
            var reason: String?
            var invalidating: Bool
        }
        var app: String
        var registrations: [Registration] = []
        var results: [Result] = []

        /// Telemetry batches (one per registration) and sends batches, shuffled: arrival order
        /// is not time order (late registrations, late results).
        func bodies(seed: UInt64) -> [(path: String, body: [UInt8])] {
            var bodies: [(String, [UInt8])] = registrations.map { r in
                let event: [String: Any] = [
                    "event_id": UUID().uuidString.lowercased(), "type": "push_token", "at": Fixtures.time(r.at),
                    "provider": r.provider, "token": r.token,
                ]
                return (
                    "/v1/telemetry",
                    Fixtures.json([
                        "app_id": app, "installation_id": r.installation.uuidString.lowercased(),
                        "platform": r.provider == "apns" ? "ios" : "android", "sent_at": Fixtures.time(),
                        "events": [event],
                    ])
                )
            }
            let sends = results.map { r -> [String: Any] in
                var send: [String: Any] = [
                    "event_id": UUID().uuidString.lowercased(), "notification_id": UUID().uuidString.lowercased(),
                    "app_id": app,
                    "provider": r.provider, "token": r.token, "channel": "orders", "sent_at": Fixtures.time(r.sentAt),
                    "status": r.status,
                ]
                if let installation = r.installation { send["installation_id"] = installation.uuidString.lowercased() }
                switch (r.provider, r.reason) {
                case ("apns", let reason?):
                    send["response_body"] = #"{"reason":"\#(reason)","timestamp":1764500000000}"#
                case ("fcm", "UNREGISTERED"):
                    send["response_body"] =
                        #"{"error":{"code":404,"status":"NOT_FOUND","#
                        + #""details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","#
                        + #""errorCode":"UNREGISTERED"}]}}"#
                case ("fcm", let reason?): send["reason"] = reason
                default: break
                }
                return send
            }
            for start in stride(from: 0, to: sends.count, by: 25) {
                bodies.append(("/v1/sends", Fixtures.sends(Array(sends[start..<min(start + 25, sends.count)]))))
            }
            var random = SplitMix64(seed: seed)
            bodies.shuffle(using: &random)
            return bodies
        }

        /// The definition, computed here: invalid while an invalidating result has no later
        /// registration; invalidated_at is the earliest such result.
        var expected: [String: (invalidatedAt: Date, status: Int, reason: String?, installation: UUID?)] {
            var out: [String: (Date, Int, String?, UUID?)] = [:]
            for key in Set(results.map { "\($0.provider) \($0.token)" }) {
                let regs = registrations.filter { "\($0.provider) \($0.token)" == key }.sorted { $0.at < $1.at }
                let latest = regs.last?.at
                let first = results.filter {
                    "\($0.provider) \($0.token)" == key && $0.invalidating && latest.map($0.sentAt.isAfter) ?? true
                }
                .min { $0.sentAt < $1.sentAt }
                guard let first else { continue }
                let installation =
                    regs.last?.installation
                    ?? results.first { "\($0.provider) \($0.token)" == key && $0.installation != nil }?.installation
                let reason =
                    first.reason == "messaging/registration-token-not-registered" ? "UNREGISTERED" : first.reason
                out[key] = (first.sentAt, first.status, reason, installation)
            }
            return out
        }

        static func generate(app: String, installations: Int, seed: UInt64, t0: Date) -> Fleet {
            var fleet = Fleet(app: app)
            var random = SplitMix64(seed: seed)
            func token(_ provider: String) -> String {
                provider == "apns"
                    ? (0..<32).map { _ in String(format: "%02x", Int(random.next() % 256)) }.joined()
                    : "fcm-\(random.next())"
            }
            func hours(_ h: Double) -> Date { t0.addingTimeInterval(h * 3600 + Double(random.next() % 600)) }
            for i in 0..<installations {
                let provider = i % 2 == 0 ? "apns" : "fcm"
                let installation = UUID()
                let t1 = token(provider)
                let gone = provider == "apns" ? "Unregistered" : "UNREGISTERED"
                func result(
                    _ t: String, _ at: Date, _ status: Int, _ reason: String? = nil, installation: UUID? = installation,
                    invalidating: Bool = false
                ) {
                    fleet.results.append(
                        Result(
                            provider: provider, token: t, installation: installation, sentAt: at, status: status,
                            reason: reason, invalidating: invalidating))
                }
                fleet.registrations.append(
                    Registration(installation: installation, provider: provider, token: t1, at: hours(0)))
                result(t1, hours(1), 200)
                result(
                    t1, hours(1.5), provider == "apns" ? 429 : 503,
                    provider == "apns" ? "TooManyRequests" : "UNAVAILABLE")
                switch i % 6 {
                case 1:  // rotated: the old token answers 410 / UNREGISTERED after the new one registers
                    let t2 = token(provider)
                    fleet.registrations.append(
                        Registration(installation: installation, provider: provider, token: t2, at: hours(3)))
                    result(t1, hours(4), provider == "apns" ? 410 : 404, gone, invalidating: true)
                    result(t2, hours(4.5), 200)
                case 2:  // invalid, then registered again: valid
                    result(t1, hours(2), provider == "apns" ? 410 : 404, gone, invalidating: true)
                    fleet.registrations.append(
                        Registration(installation: installation, provider: provider, token: t1, at: hours(3)))
                    result(t1, hours(4), 200)
                case 3:  // invalidated twice, with a later invalidating result after the second
                    result(t1, hours(2), provider == "apns" ? 410 : 404, gone, invalidating: true)
                    fleet.registrations.append(
                        Registration(installation: installation, provider: provider, token: t1, at: hours(3)))
                    result(
                        t1, hours(5), provider == "apns" ? 400 : 404,
                        provider == "apns" ? "BadDeviceToken" : "UNREGISTERED", invalidating: true)
                    result(t1, hours(6), provider == "apns" ? 410 : 404, gone, invalidating: true)
                case 4:  // broadcast sends without installation_id
                    result(
                        t1, hours(4), provider == "apns" ? 410 : 400,
                        provider == "apns" ? "ExpiredToken" : "messaging/registration-token-not-registered",
                        installation: nil, invalidating: true)
                case 5:  // a token only the sender knows
                    result(
                        token(provider), hours(7), provider == "apns" ? 410 : 404, gone, installation: nil,
                        invalidating: true)
                default:
                    result(t1, hours(8), 200)
                }
            }
            return fleet
        }
    }

    let harness: Harness

    init() throws {
        harness = try Harness()
        try Connection.connect(url: harness.databaseURL).execute(
            """
            insert into api_keys (id, app_id, scope, key_hash, key_prefix)
            values (\(UUID()), \(Fixtures.otherApp), 'sends', \(SHA256.hash(Self.otherSendsKey)), 'pl_s_sen')
            """)
    }

    func feed(_ query: String, key: String = TestKeys.sends) throws -> (tokens: [[String: Any]], next: String) {
        let reply = try harness.request(
            "GET", "/v1/tokens/invalid\(query)", headers: [("Authorization", "Bearer \(key)")])
        #expect(reply.status == 200, "\(reply.text)")
        return (reply.json?["tokens"] as? [[String: Any]] ?? [], reply.json?["next_cursor"] as? String ?? "")
    }

    /// One walk from `cursor`: its tokens and the cursor that starts the next walk.
    func walk(from cursor: String?, limit: Int, since: String? = nil) throws -> (tokens: [[String: Any]], next: String)
    {
        var tokens: [[String: Any]] = []
        var cursor = cursor
        while true {
            var query = "?limit=\(limit)"
            if let cursor { query += "&cursor=\(cursor)" }
            if let since { query += "&since=\(since)" }
            let page = try feed(query)
            tokens += page.tokens
            cursor = page.next
            if page.tokens.count < limit { return (tokens, page.next) }
        }
    }

    static func key(_ token: [String: Any]) -> String {
        "\(token["provider"] as? String ?? "?") \(token["token"] as? String ?? "?")"
    }

    @Test func theFeedEqualsTheDefinitionAndPagingUnderIngestLosesNothing() throws {
        let t0 = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 10 * 3600).rounded(.down))
        let fleet = Fleet.generate(app: Fixtures.app, installations: 180, seed: 16, t0: t0)
        let other = Fleet.generate(app: Fixtures.otherApp, installations: 30, seed: 61, t0: t0)
        let bodies = fleet.bodies(seed: 1)
        let halves = [
            Array(bodies.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)),
            Array(bodies.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)),
        ]
        let posters = halves.map { half in
            Background { [harness] in
                for (path, body) in half {
                    let reply = try harness.post(
                        path, body, key: path == "/v1/sends" ? TestKeys.sends : TestKeys.telemetry)
                    guard reply.status == 200, reply.rejected.isEmpty else { throw CancellationError() }
                }
            }
        }
        for (path, body) in other.bodies(seed: 2) {
            #expect(
                try harness.post(path, body, key: path == "/v1/sends" ? Self.otherSendsKey : TestKeys.otherApp).status
                    == 200)
        }

        // A sender polling with small pages while ingest runs, then once more after it ends.
        var lastServed: [String: String] = [:]
        var cursor: String? = nil
        var walks = 0
        while true {
            let ingestDone = posters.allSatisfy(\.isFinished)
            if ingestDone { try TestDatabase.waitForFeedHorizon(on: Connection.connect(url: harness.databaseURL)) }
            let walk = try walk(from: cursor, limit: 7)
            let keys = walk.tokens.map(Self.key)
            #expect(Set(keys).count == keys.count, "a token served twice in one walk")
            for token in walk.tokens { lastServed[Self.key(token)] = token["invalidated_at"] as? String }
            cursor = walk.next
            walks += 1
            if ingestDone { break }
        }
        for poster in posters { try poster.value() }
        #expect(walks > 1)

        let expected = fleet.expected
        #expect(expected.count > 60)
        let latestRegistration = Dictionary(
            fleet.registrations.map { ("\($0.provider) \($0.token)", $0.at) }, uniquingKeysWith: max)
        for (key, truth) in expected {
            let served = try #require(lastServed[key].flatMap { RFC3339.date($0) }, "never served: \(key)")
            // Served in the token's current invalid episode (after its latest registration).
            #expect(latestRegistration[key].map(served.isAfter) ?? true, "\(key) last served from an earlier episode")
            #expect(served >= truth.invalidatedAt.addingTimeInterval(-0.001))
        }

        // A fresh walk is the definition, exactly (the horizon settled above); another app's tokens never appear.
        let fresh = try walk(from: nil, limit: 50).tokens
        var got: [String: String] = [:]
        for token in fresh {
            let installation = (token["installation_id"] as? String) ?? "-"
            got[Self.key(token)] =
                """
                \(token["invalidated_at"] as? String ?? "") \(token["status"] as? Int ?? -1) \
                \(token["reason"] as? String ?? "-") \(installation)
                """
        }
        let want = expected.mapValues { e in
            """
            \(Timestamp.rfc3339(e.invalidatedAt)) \(e.status) \(e.reason ?? "-") \
            \(e.installation?.uuidString.lowercased() ?? "-")
            """
        }
        #expect(got == want)
        let otherTokens = Set(other.results.map(\.token))
        #expect(fresh.allSatisfy { !otherTokens.contains($0["token"] as? String ?? "") })
        let otherFeed = try feed("?limit=10000", key: Self.otherSendsKey).tokens
        #expect(Set(otherFeed.map(Self.key)) == Set(other.expected.keys))

        // since: only tokens invalidated at or after it.
        let since = t0.addingTimeInterval(5 * 3600)
        let recent = try walk(from: nil, limit: 9, since: Fixtures.time(since)).tokens
        #expect(Set(recent.map(Self.key)) == Set(expected.filter { $0.value.invalidatedAt >= since }.keys))
    }

    @Test func aTelemetryKeyIsForbiddenAndBadQueriesAre400() throws {
        let forbidden = try harness.request(
            "GET", "/v1/tokens/invalid", headers: [("Authorization", "Bearer \(TestKeys.telemetry)")])
        #expect(forbidden.status == 403 && forbidden.errorCode == "forbidden")
        let unauthorized = try harness.request("GET", "/v1/tokens/invalid")
        #expect(unauthorized.status == 401)
        let bad = try harness.request(
            "GET", "/v1/tokens/invalid?cursor=nonsense", headers: [("Authorization", "Bearer \(TestKeys.sends)")])
        #expect(bad.status == 400 && bad.errorCode == "invalid_query")
        let empty = try feed("")
        #expect(empty.tokens.isEmpty && empty.next.hasPrefix("f1."))
    }
}

extension Date {
    fileprivate func isAfter(_ other: Date) -> Bool { self > other }
}
