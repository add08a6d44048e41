import Foundation
import Postgres
import PushLedgerSupport
import TestSupport
import Testing

@testable import Reports

/// Grafana is not packaged for Debian, so the dashboards are checked here: valid JSON, fixed
/// uids, one datasource, and every panel's SQL run against the real migrated schema as the
/// read-only role, with Grafana's macros expanded as Grafana's PostgreSQL datasource does.
@Suite("Grafana dashboards")
struct DashboardTests {
    static let directory = TestDatabase.repositoryRoot.appendingPathComponent("dashboards")
    static let datasourceUID = "pushledger-postgres"

    /// The columns each panel's query must return, by dashboard uid and panel id.
    static let expectedColumns: [String: [Int: [String]]] = [
        "pushledger-delivery": [
            1: ["sends", "accepted", "could_confirm", "confirmed", "opened"],
            2: ["time", "metric", "silent_loss_rate"],
            3: [
                "time", "opened", "received", "blocked_app", "blocked_channel", "unconfirmed", "unattributed",
                "unconfirmable", "pending", "rejected",
            ],
            4: ["time", "metric", "rejected"],
            5: ["time", "token_invalid", "sends_to_known_invalid_tokens"],
            6: [
                "time", "superseded_rate", "app_stopped_rate", "expired_rate", "device_inactive_rate",
                "unexplained_rate",
            ],
            7: ["time", "metric", "unconfirmable"],
            8: ["time", "metric", "silent_loss_rate"],
        ],
        "pushledger-permissions": [
            1: ["cohort", "prompted", "opt_in_rate", "provisional_rate"],
            2: ["cohort", "installs", "reach_rate"],
            3: ["time", "opt_in_rate", "provisional_rate"],
            4: ["time", "metric", "revocations"],
            5: ["channel", "blocked_installations"],
        ],
        "pushledger-pipeline": [
            1: ["time", "metric", "events_per_second"],
            2: ["time", "metric", "failed_events"],
            3: ["app_id", "latest_received_at", "minutes_since_telemetry"],
            4: ["rule", "app_id", "slice", "firing_since"],
            5: [
                "time", "state", "rule", "app_id", "slice", "current_rate", "baseline_rate", "current_volume",
                "baseline_volume", "delta_pp", "p_value", "message",
            ],
        ],
    ]

    struct Target {
        var dashboard: String
        var panel: Int
        var title: String
        var format: String
        var rawSQL: String
    }

    static func dashboards() throws -> [[String: Any]] {
        let folder = directory.appendingPathComponent("json")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted().map {
                let data = try Data(contentsOf: folder.appendingPathComponent($0))
                return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            }
    }

    static func targets() throws -> [Target] {
        try dashboards().flatMap { dashboard -> [Target] in
            let uid = dashboard["uid"] as? String ?? ""
            return (dashboard["panels"] as? [[String: Any]] ?? []).flatMap { panel in
                (panel["targets"] as? [[String: Any]] ?? []).map {
                    Target(
                        dashboard: uid, panel: panel["id"] as? Int ?? -1, title: panel["title"] as? String ?? "",
                        format: $0["format"] as? String ?? "", rawSQL: $0["rawSql"] as? String ?? "")
                }
            }
        }
    }

    @Test("three dashboards with fixed, unique uids; every panel on the PushLedger datasource")
    func structure() throws {
        let dashboards = try Self.dashboards()
        #expect(Set(dashboards.compactMap { $0["uid"] as? String }) == Set(Self.expectedColumns.keys))
        #expect(dashboards.count == 3)
        for dashboard in dashboards {
            let panels = try #require(dashboard["panels"] as? [[String: Any]])
            #expect(Set(panels.compactMap { $0["id"] as? Int }).count == panels.count)
            for panel in panels {
                let datasource = panel["datasource"] as? [String: String]
                #expect(datasource == ["type": "grafana-postgresql-datasource", "uid": Self.datasourceUID])
                #expect((panel["targets"] as? [[String: Any]])?.count == 1)
            }
        }
        #expect(try Self.targets().count == Self.expectedColumns.values.map(\.count).reduce(0, +))
    }

    @Test("provisioning: datasource with a fixed uid, the reader role and secrets from the environment")
    func provisioning() throws {
        let datasource = try String(
            contentsOf: Self.directory.appendingPathComponent("provisioning/datasources/pushledger.yaml"),
            encoding: .utf8)
        #expect(datasource.contains("type: grafana-postgresql-datasource"))
        #expect(datasource.contains("uid: \(Self.datasourceUID)"))
        #expect(datasource.contains("user: pushledger_reader"))
        #expect(datasource.contains("password: $__env{PUSHLEDGER_READER_PASSWORD}"))
        let provider = try String(
            contentsOf: Self.directory.appendingPathComponent("provisioning/dashboards/pushledger.yaml"),
            encoding: .utf8)
        #expect(provider.contains("type: file"))
        #expect(provider.contains("apiVersion: 1"))
    }

    @Test("macro expansion matches Grafana's PostgreSQL macros")
    func macros() throws {
        let range = (AlertFleet.day(0), AlertFleet.day(1))
        #expect(
            try GrafanaMacros.expand("where $__timeFilter(day)", range: range, variables: [:])
                == "where day BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z'")
        #expect(
            try GrafanaMacros.expand("select $__timeGroupAlias(at, '1h')", range: range, variables: [:])
                == "select floor(extract(epoch from at)/3600)*3600 AS \"time\"")
        #expect(
            try GrafanaMacros.expand("$__timeFrom() $__timeTo() in ($app)", range: range, variables: ["app": "'a','b'"])
                == "'2026-11-01T00:00:00Z' '2026-11-02T00:00:00Z' in ('a','b')")
        #expect(throws: (any Error).self) { try GrafanaMacros.expand("$__unknown(x)", range: range, variables: [:]) }
        #expect(throws: (any Error).self) { try GrafanaMacros.expand("$nope", range: range, variables: [:]) }
    }

    @Test("every panel query runs as pushledger_reader and returns its panel's columns")
    func queriesRun() throws {
        let fleet = try Self.fixture()
        let range = (AlertFleet.day(0), AlertFleet.day(10))
        let variables = ["app": "'com.example.shop'", "experiment": "push_prompt_timing"]
        try fleet.connection.executeScript("set role pushledger_reader")
        for target in try Self.targets() {
            let sql = try GrafanaMacros.expand(target.rawSQL, range: range, variables: variables)
            let result = try fleet.connection.query(SQL(unsafeRaw: sql))
            #expect(
                result.columns == Self.expectedColumns[target.dashboard]?[target.panel],
                "\(target.dashboard) \(target.title)")
            #expect(!result.isEmpty, "\(target.dashboard) \(target.title) returned no rows on the fixture")
            if target.format == "time_series" { #expect(result.columns.first == "time", "\(target.title)") }
        }
    }

    /// The channel-block fleet plus everything the other panels read: prompts, exposures, a
    /// revocation, failed events, the de-duplication ledger, refreshed rollups and an alert.
    static func fixture() throws -> AlertFleet {
        let fleet = try AlertCheckTests.channelBlockSpike()
        try fleet.prompts(from: 0, to: 10, perDay: 20, grantedPercent: 55)
        try fleet.sends(
            channel: "account", from: 2, to: 4, perDay: 50, rejectPermille: 200, rejectStatus: 410,
            rejectReason: "Unregistered")
        let c = fleet.connection
        let app = fleet.app
        try c.execute(
            """
            insert into experiment_exposures (app_id, event_id, installation_id, platform, experiment, variant, at, \
            occurred_at, received_at)
            select \(app), gen_random_uuid(), md5(\(app) || 'inst' || i)::uuid, 'android', 'push_prompt_timing',
                   case when i % 2 = 0 then 'first_screen' else 'after_first_order' end, t, t, t
              from generate_series(1, 40) i, lateral (select \(AlertFleet.day(1)) + i * interval '1 hour' as t) x
            """)
        try c.execute(
            """
            insert into settings_snapshots (app_id, event_id, installation_id, platform, app_version, \
            notifications_enabled, at, occurred_at, received_at)
            select \(app), gen_random_uuid(), md5(\(app) || 'inst' || i)::uuid, 'android', '5.0', false, t, t, t
              from generate_series(1, 5) i, lateral (select \(AlertFleet.day(9)) + i * interval '1 hour' as t) x
            """)
        // Web push sends of granted Chrome installations (the web panel).
        try c.execute(
            """
            insert into settings_snapshots (app_id, event_id, installation_id, platform, app_version, browser, \
            browser_version, authorization_status, push_permission_state, at, occurred_at, received_at)
            select \(app), gen_random_uuid(), md5(\(app) || 'web' || i)::uuid, 'web', '5.0', 'chrome', '131.0',
                   'authorized', 'granted', t, t, t
              from generate_series(1, 5) i, lateral (select \(AlertFleet.day(2)) + i * interval '1 hour' as t) x
            """)
        try c.execute(
            """
            insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by, \
            channel, sent_at, status, received_at, push_service)
            select \(app), gen_random_uuid(), gen_random_uuid(), 'webpush', 'https://fcm.googleapis.com/fcm/send/' || i,
                   md5(\(app) || 'web' || i)::uuid, 'explicit', 'orders', t, 201, t, 'fcm'
              from generate_series(1, 5) i, lateral (select \(AlertFleet.day(3)) + i * interval '1 hour' as t) x
            """)
        try c.execute(
            """
            insert into failed_events (app_id, endpoint, error_code, message, event_index, event_id, raw_json, \
            received_at)
            values (\(app), '/v1/telemetry', 'invalid_field', 'at: expected RFC 3339', 0, 'e1', '{}', \
            \(AlertFleet.day(3))),
                   ('', '/v1/sends', 'bad_json', 'not JSON', null, null, '{', \(AlertFleet.day(4)))
            """)
        try c.execute(
            """
            insert into event_ids (app_id, event_id, received_at)
            select app_id, event_id, received_at from notification_receipts
            """)
        _ = try c.query("select * from pushledger_refresh_rollups(\(AlertFleet.day(12)), interval '24 hours')")
        _ = try AlertChecker(rules: AlertCheckTests.deliveryRules).check(connection: c, at: AlertFleet.day(10))
        return fleet
    }
}

/// Grafana's PostgreSQL macros and template variables, expanded the way the datasource does
/// (docs: "Macros" of the PostgreSQL data source). Unknown macros and variables are errors.
enum GrafanaMacros {
    struct Unexpanded: Error, CustomStringConvertible {
        var description: String
    }

    static func expand(_ sql: String, range: (from: Date, to: Date), variables: [String: String]) throws -> String {
        let from = "'\(iso(range.from))'", to = "'\(iso(range.to))'"
        var text = sql
        text = try replace(#"\$__timeFilter\(([^)]+)\)"#, in: text) { "\($0[0]) BETWEEN \(from) AND \(to)" }
        text = try replace(#"\$__timeGroupAlias\(([^,]+),\s*'([0-9]+[smhd])'\)"#, in: text) {
            let seconds = try TimeSpan(parsing: $0[1]).seconds
            return "floor(extract(epoch from \($0[0]))/\(seconds))*\(seconds) AS \"time\""
        }
        text = text.replacingOccurrences(of: "$__timeFrom()", with: from).replacingOccurrences(
            of: "$__timeTo()", with: to)
        text = try replace(#"\$([A-Za-z_][A-Za-z0-9_]*)"#, in: text) { groups in
            guard !groups[0].hasPrefix("__"), let value = variables[groups[0]] else {
                throw Unexpanded(description: "$\(groups[0])")
            }
            return value
        }
        return text
    }

    private static func replace(
        _ pattern: String, in text: String, _ make: ([String]) throws -> String
    ) throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        var result = text
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
            let groups = (1..<match.numberOfRanges).map {
                String(text[Range(match.range(at: $0), in: text)!]).trimmingCharacters(in: .whitespaces)
            }
            result.replaceSubrange(Range(match.range, in: result)!, with: try make(groups))
        }
        return result
    }

    private static func iso(_ date: Date) -> String {
        Timestamp.rfc3339(date).replacingOccurrences(of: ".000Z", with: "Z")
    }
}
