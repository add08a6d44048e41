import Foundation
import Postgres
import TestSupport
import Testing

/// The browser as a platform, end to end over a real server: a web request with every event
/// type is stored whole, webpush results are classified, the gone subscriptions are on the
/// invalid-token feed, and the silent-loss report has a web row counting exactly what was posted
/// (by the engine and from the rollups, sliced by platform, browser and push service).
@Suite(.serialized) struct WebPushEndToEndTests {
    let app = "com.example.shop"
    /// Sends are posted 30 hours ago, past the confirmation window; telemetry around them.
    let sentAt = Date().addingTimeInterval(-30 * 3_600)
    let endpoints = [
        "chrome": "https://fcm.googleapis.com/fcm/send/dXk1Zk3a9QM:APA91bChrome-endpoint",
        "firefox": "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABfirefox-endpoint",
        "safari": "https://web.push.apple.com/QGuQyavXutnMmDWF-safari-endpoint",
        "gone": "https://fcm.googleapis.com/fcm/send/gone-subscription",
        "expired": "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD-expired",
    ]

    func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    func id(_ name: String) -> String {
        let digits = name.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        return String(format: "00000000-0000-4000-8000-%012llx", digits & 0xFFFF_FFFF_FFFF)
    }

    /// One browser's batch: its settings an hour before the sends, its subscription, and `events`.
    func batch(browser: String, permission: String, push: String, events: [[String: Any]]) -> [UInt8] {
        let before = time(sentAt.addingTimeInterval(-3_600))
        let first: [[String: Any]] = [
            [
                "event_id": id("\(browser)-settings"), "type": "notification_settings", "at": before,
                "authorization_status": permission, "push_permission_state": push, "display_mode": "browser",
                "subscription": "active",
            ],
            [
                "event_id": id("\(browser)-token"), "type": "push_token", "at": before, "provider": "webpush",
                "token": endpoints[browser]!,
            ],
        ]
        return Fixtures.json([
            "app_id": app, "installation_id": id("\(browser)-installation"), "platform": "web", "browser": browser,
            "browser_version": "131.0", "app_version": "2026.12.1", "os_version": "Windows 10.0",
            "sent_at": time(Date()), "events": first + events,
        ])
    }

    func send(_ name: String, endpoint: String, status: Int, topic: String? = nil) -> [String: Any] {
        var send: [String: Any] = [
            "event_id": id("send-\(name)"), "notification_id": id(name), "app_id": app, "provider": "webpush",
            "token": endpoints[endpoint]!, "channel": "orders", "sent_at": time(sentAt), "status": status,
            "ttl_seconds": 86_400, "urgency": "normal",
        ]
        if let topic { send["topic"] = topic }
        return send
    }

    @Test func aBrowsersEventsAndWebPushSendsAreStoredClassifiedAndReported() throws {
        let url = try TestDatabase.fresh(prefix: "webpush")
        let db = try Connection.connect(url: url)
        try TestKeys.insert(into: db)
        let server = try ServeProcess(databaseURL: url)
        func post(_ path: String, key: String, _ body: [UInt8]) throws -> RawReply {
            let connection = try RawHTTPConnection(port: server.port)
            connection.write(RawRequest.post(path, key: key, body: body))
            return try connection.readReply()
        }
        let after = time(sentAt.addingTimeInterval(3_600))
        // Chrome granted: every event type, the receipts of three of its four sends.
        let chrome = batch(
            browser: "chrome", permission: "authorized", push: "granted",
            events: [
                [
                    "event_id": id("prompt"), "type": "permission_prompt", "at": after, "placement": "first_screen",
                    "prompt": "system", "result": "granted",
                ],
                [
                    "event_id": id("exposure"), "type": "experiment_exposure", "at": after,
                    "experiment": "push_prompt_timing", "variant": "first_screen",
                ],
                [
                    "event_id": id("received"), "type": "notification_received", "at": after,
                    "notification_id": id("n1"), "displayed": true,
                ],
                [
                    "event_id": id("opened"), "type": "notification_opened", "at": after,
                    "notification_id": id("n2"), "action": "default",
                ],
                [
                    "event_id": id("dismissed"), "type": "notification_dismissed", "at": after,
                    "notification_id": id("n6"),
                ],
            ])
        let stored = try post("/v1/telemetry", key: TestKeys.telemetry, chrome)
        #expect(
            stored.status == 200 && stored.json?["accepted"] as? Int == 7
                && (stored.json?["rejected"] as? [Any])?.isEmpty == true)
        for (browser, permission, push) in [("firefox", "denied", "denied"), ("safari", "not_determined", "prompt")] {
            let reply = try post(
                "/v1/telemetry", key: TestKeys.telemetry,
                batch(browser: browser, permission: permission, push: push, events: []))
            #expect(reply.status == 200 && reply.json?["accepted"] as? Int == 2)
        }
        var unnamed = try JSONSerialization.jsonObject(with: Data(chrome)) as! [String: Any]
        unnamed["browser"] = nil
        let refused = try post("/v1/telemetry", key: TestKeys.telemetry, Fixtures.json(unnamed))
        #expect(refused.status == 400 && refused.json?["error"] as? String == "missing_field")

        let sends = [
            send("n1", endpoint: "chrome", status: 201), send("n2", endpoint: "chrome", status: 201),
            send("n3", endpoint: "chrome", status: 201, topic: "order-42"), send("n6", endpoint: "chrome", status: 201),
            send("n4", endpoint: "firefox", status: 201), send("n5", endpoint: "safari", status: 201),
            send("n7", endpoint: "gone", status: 410), send("n8", endpoint: "expired", status: 404),
        ]
        let posted = try post("/v1/sends", key: TestKeys.sends, Fixtures.sends(sends))
        #expect(posted.status == 200 && posted.json?["accepted"] as? Int == 8, "\(posted.text)")

        // Stored as the contract says: the push service from the host, TTL as the expiry, Topic as the collapse id.
        let rows = try db.query(
            """
            select push_service, urgency, collapse_id, extract(epoch from expires_at - sent_at)::int8 as ttl,
                   resolved_by
              from sends where notification_id = \(UUID(uuidString: id("n3"))!)
            """)
        #expect(try rows[0].decode("push_service", as: String.self) == "fcm")
        #expect(try rows[0].decode("urgency", as: String.self) == "normal")
        #expect(try rows[0].decode("collapse_id", as: String.self) == "order-42")
        #expect(try rows[0].decode("ttl", as: Int.self) == 86_400)
        #expect(try rows[0].decode("resolved_by", as: String.self) == "token")
        #expect(
            try db.query("select count(*)::int8 from notification_receipts where dismissed")[0].decode(0, as: Int.self)
                == 1)

        // The gone subscriptions on the feed, as the sender reads it.
        try TestDatabase.waitForFeedHorizon(on: db)
        let feed = try RawHTTPConnection(port: server.port)
        feed.write(
            RawRequest.make("GET", "/v1/tokens/invalid", headers: [("Authorization", "Bearer \(TestKeys.sends)")]))
        let tokens = try #require(try feed.readReply().json?["tokens"] as? [[String: Any]])
        #expect(
            Set(tokens.map { "\($0["provider"]!) \($0["token"]!)" })
                == ["webpush \(endpoints["gone"]!)", "webpush \(endpoints["expired"]!)"])

        let environment = ["DATABASE_URL": url, "PUSHLEDGER_APP": app]
        let from = time(sentAt.addingTimeInterval(-86_400)), to = time(Date())
        func report(_ by: String, source: String) throws -> [[String: Any]] {
            let result = try CommandRunner.run(
                [
                    "report", "silent-loss", "--from", from, "--to", to, "--by", by, "--source", source, "--format",
                    "json",
                ],
                environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return try #require(object?["rows"] as? [[String: Any]])
        }
        #expect(try CommandRunner.run(["rollup", "--full"], environment: environment).status == 0)
        for source in ["engine", "rollups"] {
            let web = try #require(try report("platform", source: source).first { $0["platform"] as? String == "web" })
            let expected: [String: Int] = [
                "sends": 8, "accepted": 6, "rejected": 2, "opened": 1, "received": 2, "blocked_app": 2,
                "unconfirmed": 1, "token_invalid": 2, "blocked_channel": 0, "unattributed": 0, "unconfirmable": 0,
            ]
            for (counter, count) in expected { #expect(web[counter] as? Int == count, "\(source) \(counter)") }
            let browsers = try report("platform,browser", source: source)
            let byBrowser = Dictionary(
                browsers.map { (($0["browser"] as? String) ?? "none", $0["sends"] as? Int ?? -1) }, uniquingKeysWith: +)
            #expect(byBrowser == ["chrome": 4, "firefox": 1, "safari": 1, "none": 2], "\(source)")
            let services = try report("push_service", source: source)
            let byService = Dictionary(
                services.map { (($0["push_service"] as? String) ?? "none", $0["sends"] as? Int ?? -1) },
                uniquingKeysWith: +)
            #expect(byService == ["fcm": 5, "mozilla": 1, "apple": 1, "windows": 1], "\(source)")
        }

        // The weekly report's web part: per browser and per push service.
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: sentAt)
        let week = String(format: "%04d-W%02d", parts.yearForWeekOfYear!, parts.weekOfYear!)
        let weekly = try CommandRunner.run(
            ["report", "weekly", "--week", week, "--format", "json"], environment: environment)
        #expect(weekly.status == 0, "\(weekly.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(weekly.stdout.utf8)) as? [String: Any]
        let web = try #require(document?["web"] as? [String: [[String: Any]]])
        func thisWeek(_ rows: [[String: Any]]?) -> [String: Int] {
            Dictionary(
                (rows ?? []).map { row in
                    (row["name"] as? String ?? "?", (row["current"] as? [String: Any])?["sends"] as? Int ?? -1)
                }, uniquingKeysWith: +)
        }
        #expect(thisWeek(web["browsers"]) == ["chrome": 4, "firefox": 1, "safari": 1, "unknown": 2])
        #expect(thisWeek(web["push_services"]) == ["fcm": 5, "mozilla": 1, "apple": 1, "windows": 1])
        let markdown = try CommandRunner.run(
            ["report", "weekly", "--week", week, "--format", "markdown"], environment: environment)
        #expect(markdown.stdout.contains("Web push per browser") && markdown.stdout.contains("| chrome |"))
    }
}
