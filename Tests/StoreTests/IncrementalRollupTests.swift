import Foundation
import Postgres
import PushLedgerContract
import PushLedgerSupport
import Reports
import Store
import Testing

/// The incremental refresh is exact: random sequences of ingest through the writer (late
/// receipts and opens, late snapshots and channel states, re-registered tokens, back-filled
/// invalidating results, duplicate batches, future-dated events, whole days marked dirty,
/// erasures, time passing the confirmation window; for the prompt cohorts late exposures and
/// prompts, snapshots a week after a grant, installations changing platform and first_seen_at)
/// with a refresh after each step leave every rollup table, and the rows they group, equal to a
/// rebuild from scratch as of the same time.
/// PUSHLEDGER_ROLLUP_SEED=n replays one seed.
@Suite struct IncrementalRollupTests {
    typealias F = Fixture

    /// Every rollup table as text, one sorted row a line, without refresh times and as_of.
    static let tables: [(name: String, columns: String)] = [
        ("send_rollups_daily", "app_id, day, platform, channel, app_version, campaign, provider, sends, accepted, rejected, opened, received, pending, blocked_app, blocked_channel, unattributed, unconfirmed, token_invalid, to_invalid_token, unattributed_uninstrumented"),
        ("send_rejections_daily", "app_id, day, platform, provider, reason_class, reason, status, rejected"),
        ("instrumented_slices_daily", "app_id, day, platform, app_version"),
        ("open_landings_daily", "app_id, day, channel, campaign, opens, landed_reported, misrouted"),
        ("prompt_cohorts_daily", "app_id, experiment, day, cohort, platform, installs, prompted, granted, provisional, reached, granted_without_prompt, retained_eligible, retained, hours_to_prompt"),
        ("prompt_cohort_members", "*"),
        ("send_outcomes", "*"),
        ("open_landing_notifications", "*"),
    ]

    static func contents(_ connection: Connection) throws -> [String: String] {
        var result: [String: String] = [:]
        for table in tables {
            result[table.name] = try connection.query(
                """
                select coalesce(string_agg(t::text, E'\\n' order by t::text), '') as rows
                  from (select \(unsafeRaw: table.columns) from \(identifier: table.name)) t
                """)[0].decode("rows")
        }
        return result
    }

    /// The refresh `pushledger rollup` runs; a failure is recorded with its database detail.
    static func refresh(_ connection: Connection, asOf: Date, full: Bool = false) throws -> ReportRollups.Summary {
        do {
            return try ReportRollups.refresh(connection: connection, asOf: asOf, full: full)
        } catch {
            Issue.record("\(error.debugDescription)")
            throw error
        }
    }

    /// Every rollup table after the refresh as of `asOf` equals a rebuild as of the same time.
    static func expectEqualToRebuild(_ db: StoreDatabase, asOf: Date, _ context: String) throws {
        let incremental = try contents(db.connection)
        // The rebuild's own functions inside one transaction that is rolled back (ReportRollups
        // commits its own), so the next step goes on from the incremental state.
        try db.connection.execute("begin")
        _ = try db.connection.query("select pushledger_rebuild_prompt_rollups(\(asOf))")
        _ = try db.connection.query("select * from pushledger_rebuild_report_rollups(\(asOf), '24 hours'::interval)")
        let rebuilt = try contents(db.connection)
        try db.connection.execute("rollback")
        for table in tables {
            let (mine, theirs) = (Set((incremental[table.name] ?? "").split(separator: "\n")), Set((rebuilt[table.name] ?? "").split(separator: "\n")))
            #expect(mine.symmetricDifference(theirs).isEmpty,
                    "\(context), as of \(asOf): \(table.name) differs from a rebuild; only incremental: \(mine.subtracting(theirs).sorted()); only rebuilt: \(theirs.subtracting(mine).sorted())")
        }
    }

    static var seeds: [UInt64] {
        if let text = ProcessInfo.processInfo.environment["PUSHLEDGER_ROLLUP_SEED"], let seed = UInt64(text) { return [seed] }
        return [1, 2, 3, 4]
    }

    @Test(arguments: seeds) func incrementalRefreshesEqualARebuild(seed: UInt64) throws {
        print("IncrementalRollupTests seed \(seed) (replay: PUSHLEDGER_ROLLUP_SEED=\(seed))")
        let db = try StoreDatabase()
        var world = RandomIngest(seed: seed)
        var hour = -60.0
        var refreshes = 0
        var reclassified = 0
        var promptMoves = 0
        for step in 0..<14 {
            for _ in 0..<world.int(2...5) {
                let units = world.units(at: hour)
                for unit in units { _ = try db.write(unit) }
            }
            if world.chance(0.15) {
                try db.connection.execute("select pushledger_mark_rollups_dirty(\(F.app), \(F.time(hour - 30))::date, \(F.time(hour - 6))::date)")
            }
            if world.chance(0.1) {
                let victim = world.pick(world.installations)
                _ = try db.connection.query("select * from pushledger_erase(\(F.app), \(victim.id), null)")
            }
            let asOf = F.time(hour)
            let summary = try Self.refresh(db.connection, asOf: asOf)
            refreshes += 1
            if !summary.full { reclassified += summary.reclassifiedSends; promptMoves += summary.promptCohortDays }
            try Self.expectEqualToRebuild(db, asOf: asOf, "seed \(seed), step \(step)")
            hour += world.chance(0.3) ? Double(world.int(20...30)) : Double(world.int(1...6))
        }
        let sends: Int = try db.value("select count(*)::int from send_outcomes")
        #expect(refreshes == 14 && sends > 0 && reclassified > 0)
        let members: Int = try db.value("select count(*)::int from prompt_cohort_members where first_prompt_at is not null")
        let days: Int = try db.value("select count(distinct (experiment, day))::int from prompt_cohorts_daily")
        #expect(members > 0 && days > 1 && promptMoves > 0)
    }

    /// The prompt cohorts over a larger fleet, where a step marks few of its installations:
    /// late and future-dated exposures, prompts and snapshots, grants more than a week old,
    /// changes of platform and first_seen_at, erasures, and long stretches of time.
    @Test(arguments: seeds) func promptCohortRefreshesEqualARebuild(seed: UInt64) throws {
        print("IncrementalRollupTests prompt cohorts seed \(seed) (replay: PUSHLEDGER_ROLLUP_SEED=\(seed))")
        let db = try StoreDatabase()
        var world = RandomIngest(seed: seed, fleet: 16)
        var hour = -60.0
        var (moved, retained) = (0, 0)
        for step in 0..<24 {
            for _ in 0..<world.int(2...4) { _ = try db.write(world.promptUnit(at: hour)) }
            if world.chance(0.1) {
                _ = try db.connection.query("select * from pushledger_erase(\(F.app), \(world.pick(world.installations).id), null)")
            }
            let summary = try Self.refresh(db.connection, asOf: F.time(hour))
            if step > 0 { moved += summary.promptCohortDays }
            try Self.expectEqualToRebuild(db, asOf: F.time(hour), "prompt cohorts seed \(seed), step \(step)")
            retained += try db.value("select count(*)::int from prompt_cohort_members where retained_eligible")
            hour += world.chance(0.3) ? Double(world.int(30...60)) : Double(world.int(1...5))
        }
        let platforms: Int = try db.value("select count(distinct platform)::int from prompt_cohort_members")
        #expect(moved > 0 && retained > 0 && platforms == 2)
    }
}

/// A small fleet and its random traffic, every choice drawn from one seeded generator.
struct RandomIngest {
    typealias F = Fixture
    struct Installation { var id: UUID; var platform: Platform; var version: String; var token: String }

    var random: SplitMix64
    var installations: [Installation] = []
    var nextEvent = 100_000
    var notifications: [Int] = []
    var nextNotification = 1
    var sent: [IngestUnit] = []

    init(seed: UInt64, fleet: Int = 6) {
        random = SplitMix64(seed: seed)
        for n in 1...fleet {
            let platform: Platform = n % 3 == 0 ? .ios : .android
            installations.append(Installation(id: F.installation(500 + n), platform: platform, version: "5.\(n % 2).0", token: "tok-\(n)-0"))
        }
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }
    mutating func event() -> Int { nextEvent += 1; return nextEvent }

    /// One or two ingest units of a random kind, received at `hour`.
    mutating func units(at hour: Double) -> [IngestUnit] {
        let receivedAt = F.time(hour)
        if !sent.isEmpty, chance(0.08) { return [pick(sent)] }  // a retried batch
        let unit: IngestUnit
        switch int(0...9) {
        case 0...2: unit = sends(at: hour, receivedAt: receivedAt)
        case 3...5: unit = confirmations(at: hour, receivedAt: receivedAt)
        case 6: unit = snapshot(at: hour, receivedAt: receivedAt)
        case 7: unit = chance(0.5) ? registration(at: hour, receivedAt: receivedAt) : prompts(at: hour, receivedAt: receivedAt)
        case 8: unit = backFilledInvalidation(at: hour, receivedAt: receivedAt)
        default: unit = chance(0.2) ? platformChange(at: hour, receivedAt: receivedAt) : prompts(at: hour, receivedAt: receivedAt)
        }
        sent.append(unit)
        return [unit]
    }

    /// One unit of the telemetry prompt cohorts read, received at `hour`.
    mutating func promptUnit(at hour: Double) -> IngestUnit {
        let receivedAt = F.time(hour)
        switch int(0...19) {
        case 0...8: return prompts(at: hour, receivedAt: receivedAt)
        case 9...16: return snapshot(at: hour, receivedAt: receivedAt)
        default: return platformChange(at: hour, receivedAt: receivedAt)
        }
    }

    mutating func envelope(_ i: Int) -> TelemetryEnvelope {
        let installation = installations[i]
        return F.envelope(installation: installation.id, platform: installation.platform, appVersion: installation.version)
    }

    mutating func sends(at hour: Double, receivedAt: Date) -> IngestUnit {
        var results: [SendResult] = []
        for _ in 0..<int(1...6) {
            let i = int(0...(installations.count - 1))
            let installation = installations[i]
            let notification = chance(0.15) && !notifications.isEmpty ? pick(notifications) : nextNotification
            if notification == nextNotification { notifications.append(notification); nextNotification += 1 }
            // Mostly now; some late (back-filled), a few ahead of the clock.
            let at = hour - (chance(0.2) ? Double(int(2...40)) : Double(int(0...2))) + (chance(0.07) ? 3 : 0)
            let (status, reason): (Int, String?) = pick([(200, nil), (200, nil), (200, nil), (200, nil), (503, nil), (429, nil),
                                                       (installation.platform == .ios ? 410 : 404, installation.platform == .ios ? "Unregistered" : "UNREGISTERED")])
            results.append(F.send(event(), notification: notification, at: at, token: installation.token,
                                  installation: chance(0.7) ? installation.id : nil,
                                  provider: installation.platform == .ios ? .apns : .fcm, channel: pick(["orders", "promo"]),
                                  campaign: pick(["order_update", "sale", nil]), status: status, reason: reason))
        }
        return F.sends(results, receivedAt: receivedAt)
    }

    mutating func confirmations(at hour: Double, receivedAt: Date) -> IngestUnit {
        let i = int(0...(installations.count - 1))
        var events: [TelemetryEvent] = []
        for _ in 0..<int(1...4) where !notifications.isEmpty {
            let notification = pick(notifications)
            // Late receipts of earlier sends, and now and then one dated ahead of the clock.
            let at = hour - Double(int(0...30)) + (chance(0.08) ? 5 : 0)
            let payload = chance(0.6) ? F.received(notification, displayed: pick([nil, true, false])) : F.opened(notification, landed: pick([.target, .fallback, .rejected, nil]))
            events.append(F.event(event(), at: at, payload))
        }
        if events.isEmpty { return snapshot(at: hour, receivedAt: receivedAt) }
        if chance(0.2) { installations[i].version = "5.\(int(2...3)).0" }  // an upgrade: a new slice
        return F.telemetry(envelope(i), events, receivedAt: receivedAt)
    }

    /// A snapshot dated now, late (up to a week and more after a late grant) or a little ahead
    /// of the clock, with channel states on Android.
    mutating func snapshot(at hour: Double, receivedAt: Date) -> IngestUnit {
        let i = int(0...(installations.count - 1))
        let at = hour - (chance(0.4) ? Double(int(3...50)) : 0) + (chance(0.1) ? 4 : 0)
        let payload: TelemetryPayload = installations[i].platform == .ios
            ? .notificationSettings(SettingsSnapshot(authorizationStatus: pick([.authorized, .denied, .provisional])))
            : F.androidSettings(enabled: chance(0.75), channels: chance(0.5) ? [ChannelState(id: "promo", importance: pick([0, 3]))] : nil)
        return F.telemetry(envelope(i), [F.event(event(), at: at, payload)], receivedAt: receivedAt)
    }

    /// The token registered again (sometimes a new one), possibly dated earlier.
    mutating func registration(at hour: Double, receivedAt: Date) -> IngestUnit {
        let i = int(0...(installations.count - 1))
        if chance(0.3) { installations[i].token = "tok-\(i + 1)-\(int(1...3))" }
        let installation = installations[i]
        let at = hour - Double(int(0...30))
        return F.telemetry(envelope(i), [F.event(event(), at: at, F.token(installation.token, provider: installation.platform == .ios ? .apns : .fcm))],
                           receivedAt: receivedAt)
    }

    /// An invalidating result dated well before later sends to the token.
    mutating func backFilledInvalidation(at hour: Double, receivedAt: Date) -> IngestUnit {
        let installation = pick(installations)
        let ios = installation.platform == .ios
        let result = F.send(event(), notification: nextNotification, at: hour - Double(int(10...45)), token: installation.token,
                            installation: installation.id, provider: ios ? .apns : .fcm,
                            status: ios ? 410 : 404, reason: ios ? "Unregistered" : "UNREGISTERED")
        notifications.append(nextNotification)
        nextNotification += 1
        return F.sends([result], receivedAt: receivedAt)
    }

    /// Exposures to one of two experiments and system prompts, together or alone: now, late (up
    /// to 200 hours, earlier than the installation was first seen, so a week after a grant
    /// passes within the run) or ahead of the clock.
    mutating func prompts(at hour: Double, receivedAt: Date) -> IngestUnit {
        let i = int(0...(installations.count - 1))
        let at = hour - (chance(0.5) ? Double(int(0...200)) : Double(int(0...20))) + (chance(0.1) ? 3 : 0)
        var events: [TelemetryEvent] = []
        if chance(0.7) {
            events.append(F.event(event(), at: at, .experimentExposure(ExperimentExposure(
                experiment: pick(["push_prompt_timing", "push_prompt_timing", "primer_copy"]), variant: pick(["early", "late"])))))
        }
        if events.isEmpty || chance(0.7) {
            events.append(F.event(event(), at: at + 0.5, .permissionPrompt(PermissionPrompt(
                placement: pick(["first_screen", "after_order"]), prompt: .system, result: pick([.granted, .granted, .denied, .provisional, .alreadyDetermined])))))
        }
        return F.telemetry(envelope(i), events, receivedAt: receivedAt)
    }

    /// A token registration, an event no prompt cohort reads, that changes only the
    /// installation's row: from its other platform dated now (the platform changes, and back with
    /// its next batch), or dated before it was first seen (first_seen_at moves earlier).
    mutating func platformChange(at hour: Double, receivedAt: Date) -> IngestUnit {
        let i = int(0...(installations.count - 1))
        let installation = installations[i]
        let early = chance(0.4)
        let platform: Platform = early ? installation.platform : (installation.platform == .ios ? .android : .ios)
        let envelope = F.envelope(installation: installation.id, platform: platform, appVersion: installation.version)
        let payload = F.token(installation.token, provider: platform == .ios ? .apns : .fcm)
        return F.telemetry(envelope, [F.event(event(), at: early ? hour - Double(int(200...300)) : hour, payload)], receivedAt: receivedAt)
    }
}
