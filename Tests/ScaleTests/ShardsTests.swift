import Foundation
import Postgres
import PushLedgerSupport
import Simulator
import Synchronization
import TestSupport
import Testing

/// Shards by app on stock PostgreSQL: a directory and two shards on the test cluster, one
/// `pushledger serve --directory-url` in front of them.
@Suite("Shards by app", .serialized)
struct ShardsTests {
    static let placement = [
        "com.example.shard0": "a", "com.example.shard1": "a", "com.example.shard2": "b", "com.example.shard3": "b",
    ]

    /// Fleets that ended more than a confirmation window ago: the shards' rollups and the single
    /// database's are refreshed seconds apart, each as of its own now, and a send whose window
    /// closed in between would be pending in one and judged in the other.
    static func fleets() -> [ScaleFleet] {
        placement.keys.sorted().enumerated().map { index, app in
            ScaleFleet(installs: 120, days: 3, seed: 40 + UInt64(index), app: app, hoursAgo: 26)
        }
    }

    /// Rows of `app` in every table of the database that has an `app_id` column, but the
    /// shard's record of the apps that moved away.
    static func rows(of app: String, _ connection: Connection) throws -> Int {
        let tables: [String] = try connection.query(
            """
            select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
             where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition and c.relname <> \
            'shard_departures'
               and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'app_id' and not \
            a.attisdropped)
            """
        ).map { try $0.decode(0) }
        var total = 0
        for table in tables {
            total += try connection.query("select count(*) from \(identifier: table) where app_id = \(app)")[0].decode(
                0, as: Int.self)
        }
        return total
    }

    /// Shard b is added by a Patroni-style URL (a list of hosts, read-write required): writes,
    /// rollups and the fleet-wide reads through postgres_fdw reach it all the same.
    @Test func fourAppsOnTwoShardsAreStoredOnTheirShardsAloneAndReportAsOneDatabaseWould() throws {
        let deployment = try ShardedDeployment(shards: ["a", "b"], hostLists: ["b"])
        let single = try TestDatabase.fresh(prefix: "single")
        let fleets = Self.fleets()
        let directory = try deployment.directory()
        for fleet in fleets {
            try deployment.run(["apps", "place", fleet.config.appID, "--shard", Self.placement[fleet.config.appID]!])
            try fleet.addKeys(directory)
            try fleet.addKeys(Connection.connect(url: single))
        }
        // Placing an app again elsewhere is refused: a move copies its rows.
        let again = try CommandRunner.run(
            ["--directory-url", deployment.directoryURL, "apps", "place", fleets[0].config.appID, "--shard", "b"])
        #expect(again.status == 1 && again.stderr.contains("already lives on shard 'a'"))
        let listed = try deployment.run(["shards", "list", "--format", "csv"]).stdout
        #expect(listed.contains("a,") && listed.contains("com.example.shard0 com.example.shard1"))

        let sharded = try ServeProcess(
            databaseURL: "", arguments: ["--directory-url", deployment.directoryURL, "--writers", "2"])
        let alone = try ServeProcess(databaseURL: single, arguments: ["--writers", "2"])
        let posts = fleets.flatMap { fleet in
            [
                Background { try fleet.post(to: sharded.baseURL, threads: 3) },
                Background { try fleet.post(to: alone.baseURL, threads: 3) },
            ]
        }
        let results = try posts.map { try $0.value() }
        try Self.expectKeysInTheDirectoryTakeEffectAtOnce(deployment, sharded, app: fleets[0].config.appID)

        let connections = ["a": try deployment.shard("a"), "b": try deployment.shard("b")]
        for (index, fleet) in fleets.enumerated() {
            let app = fleet.config.appID, home = Self.placement[app]!, other = home == "a" ? "b" : "a"
            let truth = results[2 * index].truth
            #expect(results[2 * index].summary.accepted == truth.telemetryEvents + truth.sends)
            #expect(try fleet.storedEvents(connections[home]!) == truth.telemetryEvents + truth.sends)
            #expect(try Self.rows(of: app, connections[other]!) == 0, "\(app) has rows on shard \(other)")
            #expect(try ScaleFleet.outcomes(connections[home]!, truth) == ScaleFleet.outcomes(truth))
        }

        // Reports through the directory (each app's shard) equal the single database's.
        try deployment.run(["rollup"])
        let refreshed = try CommandRunner.run(["--database-url", single, "rollup"])
        #expect(refreshed.status == 0)
        try Self.expectFleetTotalsEqualTheShards(deployment, fleets[0])
        try Self.expectFleetReportsEqualTheAppsCombined(deployment, fleets)
        for fleet in fleets {
            for report in Self.reports(fleet) {
                let fromShard = try deployment.run(report).stdout
                let fromSingle = try CommandRunner.run(["--database-url", single] + report)
                #expect(fromSingle.status == 0)
                // The differing lines alone: whole reports do not fit a failure's message.
                let differences = Self.differences(Self.comparable(fromShard), Self.comparable(fromSingle.stdout))
                #expect(differences == "", "\(report)")
                #expect(fromShard.contains("\"sends\""), "\(fromShard.prefix(300))")
            }
        }
        try Self.expectAShardDownFailsItsAppsAlone(deployment, sharded, fleets)
    }

    @Test func anAppMovedWhileItPostsLosesNothingAndStoresNothingTwice() throws {
        let deployment = try ShardedDeployment(shards: ["a", "b"])
        let moving = ScaleFleet(installs: 900, days: 3, seed: 50, app: "com.example.moving")
        let staying = ScaleFleet(installs: 60, days: 3, seed: 51, app: "com.example.staying")
        let directory = try deployment.directory()
        for fleet in [moving, staying] {
            try deployment.run(["apps", "place", fleet.config.appID, "--shard", "a"])
            try fleet.addKeys(directory)
        }
        let a = try deployment.shard("a"), b = try deployment.shard("b")
        let serve = try ServeProcess(
            databaseURL: "", arguments: ["--directory-url", deployment.directoryURL, "--writers", "2"])
        let stayed = try staying.post(to: serve.baseURL, threads: 2).truth
        let stayingRows = try Self.rows(of: staying.config.appID, a)

        let expected = Simulation.generate(moving.config).truth
        // The fleet, then the fleet again (every event a duplicate) until the move is over, so
        // that posting surely goes on through the pause and the flip.
        let moveOver = Mutex(false)
        let run = Background { () throws -> (summary: RunSummary, truth: Truth, retries: Int, acceptedAgain: Int) in
            let first = try moving.post(to: serve.baseURL, threads: 2)
            var retries = first.summary.retries, acceptedAgain = 0
            while !moveOver.withLock({ $0 }) {
                let again = try moving.post(to: serve.baseURL, threads: 2).summary
                retries += again.retries
                acceptedAgain += again.accepted
            }
            return (first.summary, first.truth, retries, acceptedAgain)
        }
        while !run.isFinished, try moving.storedEvents(a) < expected.telemetryEvents / 20 { usleep(20_000) }

        // A move that gives up (no time to catch up) leaves the app posting on its shard, the
        // move recorded; --rollback undoes the copy.
        let move = ["--directory-url", deployment.directoryURL, "apps", "move", moving.config.appID]
        let givenUp = try CommandRunner.run(move + ["--to", "b", "--catch-up-limit", "0s"])
        #expect(givenUp.status == 1 && givenUp.stderr.contains("did not catch up"), "\(givenUp.stderr)")
        #expect(try directory.query("select state from app_moves")[0].decode(0, as: String.self) == "copying")
        let other = try CommandRunner.run(move + ["--to", "a"])
        #expect(other.status == 1 && other.stderr.contains("in progress"))
        try deployment.run(Array(move.dropFirst(2)) + ["--rollback"])
        #expect(try Self.rows(of: moving.config.appID, b) == 0)
        #expect(try b.query("select count(*) from pg_subscription")[0].decode(0, as: Int.self) == 0)
        #expect(try a.query("select count(*) from pg_publication")[0].decode(0, as: Int.self) == 0)
        #expect(try a.query("select count(*) from pg_replication_slots")[0].decode(0, as: Int.self) == 0)
        #expect(!run.isFinished, "the post ended before the move; make the fleet larger")

        let moved = try deployment.run(Array(move.dropFirst(2)) + ["--to", "b", "--format", "json"]).stdout
        #expect(moved.contains("\"to\": \"b\""), "\(moved)")
        moveOver.withLock { $0 = true }
        // Posting went on through the flip: requests met the pause or the old shard's refusal and
        // were retried; what was posted again during the move stored nothing.
        let (summary, truth, retries, acceptedAgain) = try run.value()
        #expect(truth == expected)
        #expect(summary.accepted + summary.duplicates == summary.eventsPosted)
        #expect(retries > 0)
        #expect(acceptedAgain == 0)

        // Every event once, on the new shard alone; the app that stayed is untouched.
        #expect(try moving.storedEvents(b) == truth.telemetryEvents + truth.sends)
        #expect(try Self.rows(of: moving.config.appID, a) == 0)
        #expect(try StoredEvents.storedTwice(b) == 0)
        #expect(try ScaleFleet.outcomes(b, truth) == ScaleFleet.outcomes(truth))
        #expect(try Self.rows(of: staying.config.appID, a) == stayingRows)
        #expect(try Self.rows(of: staying.config.appID, b) == 0)
        #expect(try ScaleFleet.outcomes(a, stayed) == ScaleFleet.outcomes(stayed))
        #expect(
            try directory.query("select shard from app_placements where app_id = \(moving.config.appID)")[0].decode(
                0, as: String.self) == "b")
        #expect(try directory.query("select count(*) from app_moves")[0].decode(0, as: Int.self) == 0)
        #expect(try a.query("select moved_to from shard_departures")[0].decode(0, as: String.self) == "b")

        // Posted again after the move, every event is a duplicate: the de-duplication ids moved too.
        let again = try moving.post(to: serve.baseURL, threads: 3).summary
        #expect(again.accepted == 0 && again.duplicates == again.eventsPosted)
        #expect(try moving.storedEvents(b) == truth.telemetryEvents + truth.sends)
        try Self.expectAMoveWithoutASuperuserChangesNothing(deployment, app: moving.config.appID, stored: b)
        Logger(component: "shard-tests").info(
            "move figures", ["move": moved.replacingOccurrences(of: "\n", with: " "), "retries": summary.retries])
    }

    /// PostgreSQL 15 lets only a superuser create a subscription: a move to a shard whose login
    /// is not one is refused with the reason before anything is recorded or copied.
    static func expectAMoveWithoutASuperuserChangesNothing(
        _ deployment: ShardedDeployment, app: String, stored shard: Connection
    ) throws {
        let role = "pl_plain_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try Connection.connect(url: TestDatabase.adminURL)
        try admin.execute("create role \(identifier: role) login nosuperuser")
        try admin.execute("grant pg_read_all_data to \(identifier: role)")
        let database = try TestDatabase.fresh(prefix: "shard_plain")
        try deployment.run([
            "shards", "add", "plain", database.replacingOccurrences(of: "pushledger@", with: "\(role)@"),
        ])
        let rows = try Self.rows(of: app, shard)
        let refused = try CommandRunner.run(
            ["--directory-url", deployment.directoryURL, "apps", "move", app, "--to", "plain"])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("needs a superuser login on both shards")
                && refused.stderr.contains("role '\(role)' of shard 'plain'"), "\(refused.stderr)")
        let directory = try deployment.directory()
        #expect(try directory.query("select count(*) from app_moves")[0].decode(0, as: Int.self) == 0)
        #expect(
            try directory.query("select shard from app_placements where app_id = \(app)")[0].decode(0, as: String.self)
                == "b")
        #expect(try Self.rows(of: app, shard) == rows)
        let plain = try Connection.connect(url: database)
        #expect(try Self.rows(of: app, plain) == 0)
        #expect(try plain.query("select count(*) from pg_subscription")[0].decode(0, as: Int.self) == 0)
    }

    /// `shards totals` through the directory's postgres_fdw tables equals each shard's own sums,
    /// and its plan aggregates on the shards (one row per app travels).
    static func expectFleetTotalsEqualTheShards(_ deployment: ShardedDeployment, _ fleet: ScaleFleet) throws {
        let start = Date(timeIntervalSince1970: Double(fleet.config.startMs) / 1000)
        let window = ["--from", Timestamp.rfc3339(start), "--to", Timestamp.rfc3339(start + 3 * 86_400)]
        let csv = try deployment.run(["shards", "totals", "--format", "csv"] + window).stdout.split(
            whereSeparator: \.isNewline
        ).map { $0.split(separator: ",") }
        let header = csv[0].map(String.init)
        var fleetTotals: [String: [String: Int]] = [:]
        for line in csv.dropFirst() {
            fleetTotals[String(line[0])] = Dictionary(
                uniqueKeysWithValues: zip(header.dropFirst(), line.dropFirst().map { Int($0)! }))
        }
        var shardTotals: [String: [String: Int]] = [:], all: [String: Int] = [:]
        for name in deployment.shards.keys {
            let rows = try deployment.shard(name).query(
                """
                select app_id, sum(sends)::int8 as sends, sum(accepted)::int8 as accepted, sum(unconfirmed)::int8 as \
                unconfirmed,
                       sum(blocked_channel)::int8 as blocked_channel
                  from send_rollups_daily where day >= \(start)::date and day < \(start + 3 * 86_400)::date group by \
                app_id
                """)
            for row in rows {
                var counts: [String: Int] = [:]
                for column in ["sends", "accepted", "unconfirmed", "blocked_channel"] {
                    counts[column] = try row.decode(column)
                    all[column, default: 0] += counts[column]!
                }
                shardTotals[try row.decode("app_id")] = counts
            }
        }
        #expect(shardTotals.count == 4)
        #expect(shardTotals.values.allSatisfy { $0["sends"]! > 0 })
        for (app, counts) in shardTotals {
            #expect(
                counts.allSatisfy { fleetTotals[app]?[$0.key] == $0.value },
                "\(app): \(counts) vs \(fleetTotals[app] ?? [:])")
        }
        #expect(all.allSatisfy { fleetTotals["all apps"]?[$0.key] == $0.value })
        let plan = try deployment.run(["shards", "totals", "--plan"] + window).stdout
        // Each shard's partition is a foreign scan that carries the aggregate: "Relations: Aggregate on (…)".
        #expect(plan.components(separatedBy: "Aggregate on (fleet_shard_").count - 1 == 2, "\(plan)")
        #expect(plan.contains("GROUP BY app_id") || plan.contains("GROUP BY 1"), "\(plan)")
    }

    /// `report silent-loss` and `report weekly` without `--app` read every app through the
    /// directory: their counts (outcomes, causes of unconfirmed sends, latency buckets) are the
    /// per-app answers (each read on its shard) summed; their rates, late shares and percentile
    /// buckets are those of the sums, computed here from docs/metrics.md's definitions.
    static func expectFleetReportsEqualTheAppsCombined(_ deployment: ShardedDeployment, _ fleets: [ScaleFleet]) throws {
        typealias Sums = [String: Int]
        typealias Object = [String: Any]
        // Written out here from docs/metrics.md, not taken from the code under test.
        let outcomes = [
            "sends", "accepted", "rejected", "pending", "opened", "received", "blocked_app", "blocked_channel",
            "unconfirmed", "unattributed", "token_invalid",
        ]
        let causes = ["superseded", "app_stopped", "expired", "device_inactive", "unexplained"]
        let buckets = ["lt_10s", "lt_1m", "lt_10m", "lt_1h", "lt_6h", "lt_24h", "ge_24h"].map { "latency_" + $0 }
        let counts = outcomes + causes + buckets
        func object(_ text: String) throws -> Object {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? Object, "\(text.prefix(300))")
        }
        func list(_ report: Object, _ key: String) -> [Object] { report[key] as? [Object] ?? [] }
        func add(_ row: Any?, into sums: inout Sums) {
            for name in counts { if let value = (row as? Object)?[name] as? Int { sums[name, default: 0] += value } }
        }
        func sums(_ row: Any?) -> Sums {
            var sums = Sums()
            add(row, into: &sums)
            return sums
        }
        /// Each figure whose counts `s` holds: rates of accepted, the late share (an hour or
        /// more) of confirmed sends, the nearest-rank percentile buckets.
        func expectFigures(_ row: Any?, _ s: Sums, _ label: String) {
            let row = row as? Object ?? [:]
            func expect(_ name: String, _ numerator: [String], _ denominator: [String]) {
                guard (numerator + denominator).allSatisfy({ s[$0] != nil }) else { return }
                let n = numerator.reduce(0) { $0 + s[$1]! }, d = denominator.reduce(0) { $0 + s[$1]! }
                let actual = row[name] as? Double
                if d == 0 {
                    #expect(actual == nil, "\(label) \(name)")
                } else {
                    #expect(abs((actual ?? -1) - Double(n) / Double(d)) < 1e-9, "\(label) \(name)")
                }
            }
            expect("silent_loss_rate", ["blocked_app", "blocked_channel", "unconfirmed"], ["accepted"])
            expect("confirmed_delivery_rate", ["received", "opened"], ["accepted"])
            for cause in causes { expect(cause + "_rate", [cause], ["accepted"]) }
            expect("late_share", buckets.suffix(3), buckets)
            guard buckets.allSatisfy({ s[$0] != nil }) else { return }
            let confirmed = buckets.reduce(0) { $0 + s[$1]! }
            for (name, perMille) in [("p50_bucket", 500), ("p90_bucket", 900), ("p99_bucket", 990)] {
                let rank = max(1, (perMille * confirmed + 999) / 1000)
                var seen = 0
                let bucket =
                    confirmed == 0
                    ? nil
                    : buckets.first {
                        seen += s[$0]!
                        return seen >= rank
                    }
                #expect(
                    row[name] as? String == bucket.map { String($0.dropFirst("latency_".count)) }, "\(label) \(name)")
            }
        }

        let start = Date(timeIntervalSince1970: Double(fleets[0].config.startMs) / 1000)
        let window = [
            "--from", Timestamp.rfc3339(start), "--to", Timestamp.rfc3339(start + 3 * 86_400), "--by",
            "channel,platform",
            "--format", "json",
        ]
        let fleetWide = try object(deployment.run(["report", "silent-loss"] + window).stdout)
        func key(_ row: Object) -> String { "\(row["channel"] ?? "") \(row["platform"] ?? "")" }
        var combined: [String: Sums] = [:]
        for fleet in fleets {
            let app = try object(
                deployment.run(["report", "silent-loss", "--app", fleet.config.appID, "--source", "rollups"] + window)
                    .stdout)
            for row in list(app, "rows") { add(row, into: &combined[key(row), default: [:]]) }
        }
        #expect(fleetWide["source"] as? String == "rollups")
        let hourLater = ["--from", Timestamp.rfc3339(start + 3_600)] + window.dropFirst(2)
        for refused in [window + ["--source", "engine"], hourLater] {
            let output = try CommandRunner.run(
                ["--directory-url", deployment.directoryURL, "report", "silent-loss"] + refused)
            #expect(
                output.status != 0
                    && (output.stderr.contains("--source engine") || output.stderr.contains("whole UTC days")),
                "\(refused): \(output.stderr)")
        }
        // The figures under test are there to be wrong: causes and latency buckets counted.
        let total = combined.values.reduce(into: Sums()) { total, s in total.merge(s, uniquingKeysWith: +) }
        #expect(causes.map { total[$0] ?? 0 }.filter { $0 > 0 }.count >= 2, "\(total)")
        #expect(buckets.map { total[$0] ?? 0 }.filter { $0 > 0 }.count >= 2, "\(total)")
        #expect(list(fleetWide, "rows").count == combined.count && combined.count > 1)
        for row in list(fleetWide, "rows") {
            #expect(sums(row) == combined[key(row)], "\(key(row))")
            expectFigures(row, sums(row), key(row))
        }

        // The weekly report of the week of the last simulated day, beside the week before: the
        // headline, every channel, and the causes and latency per platform and channel.
        let week = ISOWeek(containing: start + 2 * 86_400).description
        let weekly = try object(deployment.run(["report", "weekly", "--week", week, "--format", "json"]).stdout)
        #expect(
            weekly["app"] as? String == "all apps" && weekly["prompt_timing"] == nil && weekly["per_app_only"] != nil)
        var sections: [String: [String: (current: Sums, previous: Sums)]] = [:]
        let sliced = ["channels": "name", "why_unconfirmed": "platform", "latency": "platform"]
        func slices(_ report: Object) -> [String: [String: (current: Sums, previous: Sums)]] {
            var found: [String: [String: (current: Sums, previous: Sums)]] = [:]
            let headline = report["headline"] as? Object ?? [:]
            found["headline", default: [:]]["all"] = (sums(headline["current"]), sums(headline["previous"]))
            for (section, name) in sliced {
                for slice in list(report, section) {
                    let label = "\(slice[name] ?? "") \(slice["channel"] ?? "")"
                    found[section, default: [:]][label] = (sums(slice["current"]), sums(slice["previous"]))
                }
            }
            return found
        }
        for fleet in fleets {
            let app = try object(
                deployment.run(["report", "weekly", "--app", fleet.config.appID, "--week", week, "--format", "json"])
                    .stdout)
            for (section, found) in slices(app) {
                for (label, figures) in found {
                    var both = sections[section, default: [:]][label] ?? (Sums(), Sums())
                    both.current.merge(figures.current, uniquingKeysWith: +)
                    both.previous.merge(figures.previous, uniquingKeysWith: +)
                    sections[section, default: [:]][label] = both
                }
            }
        }
        let fleetSlices = slices(weekly)
        #expect(Set(fleetSlices.keys) == Set(sections.keys) && sections.keys.count == 4)
        #expect((sections["headline"]?["all"]?.current["sends"] ?? 0) > 0)
        #expect((sections["why_unconfirmed"]?.count ?? 0) > 1 && (sections["latency"]?.count ?? 0) > 1)
        for (section, expected) in sections {
            #expect(Set(fleetSlices[section].map { Array($0.keys) } ?? []) == Set(expected.keys), "\(section)")
            for (label, figures) in expected {
                #expect(fleetSlices[section]?[label]?.current == figures.current, "\(section) \(label)")
                #expect(fleetSlices[section]?[label]?.previous == figures.previous, "\(section) \(label) previous")
            }
        }
        // Rates and latency figures of the sums, this week's and last week's.
        let headline = weekly["headline"] as? Object ?? [:]
        for when in ["current", "previous"] {
            expectFigures(headline[when], sums(headline[when]), "headline \(when)")
            for section in ["why_unconfirmed", "latency"] {
                for slice in list(weekly, section) {
                    expectFigures(slice[when], sums(slice[when]), "\(section) \(slice["platform"] ?? "") \(when)")
                }
            }
        }
    }

    /// Shard b refusing connections: its apps get 503 with Retry-After, shard a's are stored;
    /// once b is back its apps are stored again.
    static func expectAShardDownFailsItsAppsAlone(
        _ deployment: ShardedDeployment, _ serve: ServeProcess, _ fleets: [ScaleFleet]
    ) throws {
        let admin = try Connection.connect(url: TestDatabase.adminURL)
        let database = String(URLComponents(string: deployment.shards["b"]!)!.path.dropFirst())
        func post(_ fleet: ScaleFleet) throws -> RawReply {
            let connection = try RawHTTPConnection(port: serve.port)
            connection.write(
                RawRequest.make(
                    "POST", "/v1/telemetry",
                    headers: [("Authorization", "Bearer \(fleet.telemetryKey)"), ("Content-Type", "application/json")],
                    body: Fixtures.telemetry(app: fleet.config.appID, events: [Fixtures.exposure()])))
            return try connection.readReply()
        }
        let onA = fleets.first { placement[$0.config.appID] == "a" }!,
            onB = fleets.first { placement[$0.config.appID] == "b" }!
        try admin.execute("alter database \(identifier: database) allow_connections false")
        _ = try admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = \(database)")
        let refused = try post(onB)
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") != nil)
        #expect(try post(onA).status == 200)
        try admin.execute("alter database \(identifier: database) allow_connections true")
        // Back after the shard's retry interval: polled for up to a minute, so a loaded machine's
        // slow reconnect passes and a shard that is never tried again fails.
        #expect(eventually(within: 60, every: 0.1) { (try? post(onB).status) == 200 })
    }

    /// The reports compared between the deployments, for one app, over its simulated days.
    static func reports(_ fleet: ScaleFleet) -> [[String]] {
        let app = fleet.config.appID
        let from = Timestamp.rfc3339(Date(timeIntervalSince1970: Double(fleet.config.startMs) / 1000))
        let to = Timestamp.rfc3339(Date(timeIntervalSince1970: Double(fleet.config.startMs) / 1000 + 3 * 86_400))
        return [
            [
                "report", "silent-loss", "--app", app, "--from", from, "--to", to, "--as-of", to, "--source", "engine",
                "--format", "json",
            ],
            [
                "report", "silent-loss", "--app", app, "--from", from, "--to", to, "--by", "channel,platform",
                "--source", "rollups", "--format", "json",
            ],
        ]
    }

    /// A report's JSON without the lines that say when it was made.
    /// The lines of `b` that differ from `a`, each with its line number: `-` only in `a`, `+` only in `b`.
    static func differences(_ a: [Substring], _ b: [Substring]) -> String {
        b.difference(from: a).map { change in
            switch change {
            case .remove(let offset, let line, _): "-\(offset) \(line.trimmingCharacters(in: .whitespaces))"
            case .insert(let offset, let line, _): "+\(offset) \(line.trimmingCharacters(in: .whitespaces))"
            }
        }.joined(separator: " ")
    }

    static func comparable(_ json: String) -> [Substring] {
        json.split(separator: "\n").filter { line in
            !["generated", "refreshed", "fresh", "as_of", "lag"].contains { line.contains($0) }
        }
    }

    /// Keys live in the directory: one made while the sharded server runs is taken on its first
    /// request, and its revocation, announced in the directory, is heard by the server.
    static func expectKeysInTheDirectoryTakeEffectAtOnce(
        _ deployment: ShardedDeployment, _ server: ServeProcess, app: String
    ) throws {
        func status(_ key: String) throws -> Int {
            let connection = try RawHTTPConnection(port: server.port)
            // Authenticated and validated, nothing stored.
            connection.write(
                RawRequest.post(
                    "/v1/telemetry?dry_run=true", key: key,
                    body: Fixtures.telemetry(app: app, events: [Fixtures.exposure()])))
            return try connection.readReply().status
        }
        let key = try deployment.run(["keys", "create", "--app", app, "--scope", "telemetry"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try status(key) == 200)
        let id: String = try deployment.directory().query(
            "select id::text from api_keys where key_hash = sha256(convert_to(\(key), 'UTF8'))")[0].decode(0)
        try deployment.run(["keys", "revoke", id])
        // Heard within milliseconds; the periodic reload would take 10 s. The deadline only
        // keeps a loaded machine from failing the test.
        let deadline = ContinuousClock.now + .seconds(8)
        var refused = false
        while !refused, ContinuousClock.now < deadline {
            refused = try status(key) == 401
            if !refused { usleep(20_000) }
        }
        #expect(refused)
    }
}
