import Foundation
import Postgres
import PushLedgerSupport
import Simulator
import Synchronization
import TestSupport
import Testing

/// The database machine dies under load: one etcd and two PostgreSQL nodes under Patroni
/// (deploy/patroni/patroni.yml via scripts/patroni.sh), two `pushledger serve` processes on the
/// multi-host URL, a simulated fleet posted with retries. Whatever happens to the primary —
/// its machine killed, PostgreSQL crashed in place, a planned switchover — every acknowledged
/// event is stored exactly once, the totals are the simulator's, no answer says "nothing was
/// stored" of a request that was, and `/readyz` is not ready while commits cannot complete.
/// One cluster serves every scenario (each puts it back whole first), so the suite is serial.
@Suite("FailoverTests", .serialized)
struct FailoverTests {
    static let logger = Logger(component: "failover-tests")

    /// A killed node comes back on its own ports, so no other test may take one while it is
    /// down: scripts/free-port.sh and `ServeProcess.freePort` keep the same block for Patroni.
    @Test func thePatroniPortBlockIsTheScriptsAndNoOtherFreePortFallsInIt() throws {
        let script = try String(
            contentsOf: TestDatabase.repositoryRoot.appendingPathComponent("scripts/free-port.sh"), encoding: .utf8)
        func value(_ name: String) -> UInt16? {
            script.split(separator: "\n").first { $0.hasPrefix(name + "=") }.flatMap {
                UInt16($0.dropFirst(name.count + 1))
            }
        }
        #expect(value("block_low") == ServeProcess.patroniBlock.lowerBound)
        #expect(value("block_high") == ServeProcess.patroniBlock.upperBound)
        for _ in 0..<200 {
            let port = try #require(ServeProcess.freePort())
            #expect(!ServeProcess.patroniBlock.contains(port))
        }
    }

    @Test func theLeadersMachineKilledTwiceUnderLoadLosesNothing() throws {
        let run = try FailoverRun(prefix: "fokill", installs: 1_200, seed: 41)
        let readiness = ReadinessSampler(run.servers)
        // Each kill comes once half of a share of the fleet is taken, the other half going
        // around it and another half after it: the fleet is posting when the machine dies and
        // while its standby takes over, however fast this machine posts.
        let share = run.traffic.batches.count / 8
        let posting = run.traffic.post(to: run.servers.map(\.baseURL), clients: 6, held: true)
        defer { run.traffic.release() }
        for round in 1...2 {
            guard run.traffic.letThroughAndWaitForHalf(share, while: { !posting.isFinished }) else {
                Issue.record("the fleet never reached kill \(round)")
                break
            }
            let old = try #require(run.cluster.leader())
            // The first time, the dying primary has WAL its standby never got: it must be rewound.
            try run.cluster.killMachine(old, diverged: round == 1)
            let killed = ContinuousClock.now
            run.traffic.letThrough(share / 2)
            let promoted = try #require(
                poll(seconds: 60) { run.cluster.leader().map { $0 != old } ?? false },
                "no node took over from \(old)\n\(run.cluster.diagnosis())")
            // The machine is back: Patroni starts and the node rejoins by itself (pg_rewind). Under
            // the whole suite's load its rewind and start-up have taken over two minutes.
            try run.cluster.startNode(old)
            let rejoined = try #require(
                poll(seconds: 240) { run.cluster.syncStandby() == old },
                "\(old) never became the synchronous standby\n\(run.cluster.diagnosis())")
            if round == 1 { #expect(run.cluster.rewinds(old) >= 1, "\(old) rejoined without pg_rewind") }
            // Before the next machine dies, etcd has the rejoined node caught up, as an operator
            // checks (`patronictl list`) that the cluster can take another failure.
            try #require(
                poll(seconds: 60) { run.cluster.recordedLag(old) == 0 } != nil,
                "\(old) never caught up in etcd\n\(run.cluster.diagnosis())")
            let firstWrite = try #require(poll(seconds: 60) { run.traffic.first200(after: killed) != nil })
            let first200 = run.traffic.first200(after: killed)! - killed
            #expect(first200 <= .seconds(30), "first 200 \(first200) after the kill")
            // Between promotion (plus the probe's bound and interval) and the first commit, every
            // server said not ready.
            let notReadyFrom = promoted + .milliseconds(3_500)
            let window = notReadyFrom..<max(notReadyFrom, killed + first200 - .milliseconds(500))
            #expect(readiness.ready(in: window) == 0, "ready while commits could not complete")
            Self.logger.info(
                "machine kill",
                [
                    "round": round, "killed": old, "promotion_s": seconds(promoted - killed),
                    "first_200_s": seconds(first200),
                    "old_node_sync_s": seconds(rejoined - killed), "not_ready_samples": readiness.notReady(in: window),
                    "first_200_seen_s": seconds(firstWrite - killed),
                ])
        }
        run.traffic.release()
        try posting.value()
        try run.verify()
        readiness.stop()
    }

    @Test func postgresCrashedAndRestartedInPlaceLosesNothing() throws {
        let run = try FailoverRun(prefix: "focrash", installs: 150, seed: 42)
        let posting = run.traffic.post(to: run.servers.map(\.baseURL), clients: 6, held: true)
        defer { run.traffic.release() }
        try #require(
            run.traffic.letThroughAndWaitForHalf(run.traffic.batches.count / 2, while: { !posting.isFinished }),
            "the fleet never reached the crash")
        let leader = try #require(run.cluster.leader())
        try run.cluster.crashPostgres(leader)
        let crashed = ContinuousClock.now
        run.traffic.release()
        try posting.value()
        let first200 = try #require(run.traffic.first200(after: crashed)) - crashed
        try run.verify()
        Self.logger.info(
            "postgres crash",
            ["node": leader, "leader_after": run.cluster.leader() ?? "none", "first_200_s": seconds(first200)])
    }

    @Test func aSwitchoverUnderLoadLosesNothing() throws {
        let run = try FailoverRun(prefix: "foswitch", installs: 1_000, seed: 43)
        let posting = run.traffic.post(to: run.servers.map(\.baseURL), clients: 6, held: true)
        defer { run.traffic.release() }
        try #require(
            run.traffic.letThroughAndWaitForHalf(run.traffic.batches.count / 5, while: { !posting.isFinished }),
            "the fleet never reached the switchover")
        let old = try #require(run.cluster.leader())
        let standby = try #require(run.cluster.syncStandby())
        let started = ContinuousClock.now
        try run.cluster.switchover()
        let switched = ContinuousClock.now
        run.traffic.release()
        try posting.value()
        #expect(run.cluster.leader() == standby)
        #expect(run.traffic.first200(after: switched) != nil, "the fleet was posted before the switchover completed")
        let first200 = try #require(run.traffic.first200(after: started)) - started
        try run.verify()
        Self.logger.info("switchover", ["from": old, "to": standby, "first_200_s": seconds(first200)])
    }

    /// The synchronous standby's machine dies: the primary is up, reachable and answers
    /// queries, but (strict synchronous mode) no commit completes, so `/readyz` says not ready
    /// until the standby is back; `/healthz` stays 200 throughout.
    @Test func readinessIsNotReadyWhileCommitsWaitForAStandby() throws {
        let cluster = try PatroniCluster.shared.get()
        try cluster.restore()
        let url = try cluster.freshDatabase(prefix: "foready")
        try Connection.connect(url: url).execute("create table commit_check (x int)")
        let servers = try (0..<2).map { _ in
            try ServeProcess(databaseURL: url, arguments: ["--threads", "2", "--writers", "1"])
        }
        func readyz(_ server: ServeProcess) -> Int? { try? RawHTTPConnection(port: server.port).get("/readyz").status }
        #expect(poll(seconds: 30) { servers.allSatisfy { readyz($0) == 200 } } != nil)
        let standby = try #require(cluster.syncStandby())
        try cluster.killMachine(standby)
        let killed = ContinuousClock.now
        let notReady = try #require(
            poll(seconds: 30) { servers.allSatisfy { readyz($0) == 503 } }, "still ready without a standby")
        for server in servers { #expect((try? RawHTTPConnection(port: server.port).get("/healthz").status) == 200) }
        // Commits really wait: one started now has not completed a second later.
        let commit = Background {
            let connection = try Connection.connect(url: url)
            try connection.transaction { try $0.execute("insert into commit_check values (1)") }
            return ContinuousClock.now
        }
        usleep(1_000_000)
        #expect(!commit.isFinished)
        #expect(servers.allSatisfy { readyz($0) == 503 })
        try cluster.startNode(standby)
        let ready = try #require(
            poll(seconds: 120) { servers.allSatisfy { readyz($0) == 200 } }, "never ready again\n\(cluster.diagnosis())"
        )
        let committed = try commit.value()
        #expect(committed <= ready)
        Self.logger.info(
            "standby lost", ["not_ready_after_s": seconds(notReady - killed), "ready_again_s": seconds(ready - killed)])
    }
}

/// One scenario's database on the shared cluster, its fleet, and two ingestors on the multi-host URL.
struct FailoverRun {
    let cluster: PatroniCluster
    let url: String
    let fleet: ScaleFleet
    let traffic: FailoverTraffic
    let servers: [ServeProcess]

    init(prefix: String, installs: Int, seed: UInt64) throws {
        cluster = try PatroniCluster.shared.get()
        try cluster.restore()
        url = try cluster.freshDatabase(prefix: prefix)
        fleet = ScaleFleet(installs: installs, days: 2, seed: seed)
        try fleet.addKeys(Connection.connect(url: url))
        servers = try (0..<2).map { [url] _ in
            try ServeProcess(databaseURL: url, arguments: ["--threads", "2", "--writers", "2"])
        }
        traffic = FailoverTraffic(fleet: fleet)
    }

    /// What the database holds against what was acknowledged and what the simulator generated.
    func verify() throws {
        let attempts = traffic.attempts
        let unanswered = attempts.filter { $0.last?.status != 200 }
        #expect(
            unanswered.isEmpty,
            "\(unanswered.count) batches without a 200: \(unanswered.prefix(3).map { $0.map { $0.status ?? 0 } })")
        let connection = try Connection.connect(url: url)
        let stored = Set(
            try connection.query("select event_id::text as id from event_ids where app_id = \(fleet.config.appID)").map
            { try $0.decode("id", as: String.self) })
        let missing = traffic.acknowledged.subtracting(stored)
        #expect(missing.isEmpty, "\(missing.count) acknowledged events not stored")
        #expect(stored.count == traffic.truth.telemetryEvents + traffic.truth.sends)
        #expect(try StoredEvents.storedTwice(connection) == 0)
        #expect(try ScaleFleet.outcomes(connection, traffic.truth) == ScaleFleet.outcomes(traffic.truth))
        let lies = traffic.falseNothingStored
        #expect(lies.isEmpty, "\(lies.count) requests told \"nothing was stored\" whose events were stored")
        for server in servers { #expect(server.isRunning) }
        let answers = attempts.joined()
        FailoverTests.logger.info(
            "fleet",
            [
                "batches": attempts.count, "requests": answers.count, "events": stored.count,
                "outcome_unknown": answers.filter { $0.code == "outcome_unknown" }.count,
                "unavailable": answers.filter { $0.code == "unavailable" }.count,
                "network_errors": answers.filter { $0.status == nil }.count,
                "retried_duplicates": attempts.compactMap(\.last).reduce(0) { $0 + $1.duplicates },
            ])
    }
}

/// Samples `/readyz` of every server every 100 ms until stopped.
final class ReadinessSampler: Sendable {
    private let samples = Mutex<[(at: ContinuousClock.Instant, status: Int?)]>([])
    private let stopped = Atomic<Bool>(false)

    init(_ servers: [ServeProcess]) {
        let ports = servers.map(\.port)
        Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                for port in ports {
                    let status = try? RawHTTPConnection(port: port).get("/readyz").status
                    samples.withLock { $0.append((ContinuousClock.now, status)) }
                }
                usleep(100_000)
            }
        }.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Samples in `window` that said ready.
    func ready(in window: Range<ContinuousClock.Instant>) -> Int {
        samples.withLock { $0.filter { window.contains($0.at) && $0.status == 200 }.count }
    }

    /// Samples in `window` that said not ready.
    func notReady(in window: Range<ContinuousClock.Instant>) -> Int {
        samples.withLock { $0.filter { window.contains($0.at) && $0.status == 503 }.count }
    }
}

extension FailoverTraffic {
    /// When the first request sent after `instant` was answered 200.
    func first200(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        attempts.joined().filter { $0.status == 200 && $0.started > instant }.map(\.ended).min()
    }
}

/// Polls `condition` every 100 ms for up to `seconds`; the instant it held, or nil.
func poll(seconds: Double, _ condition: () -> Bool) -> ContinuousClock.Instant? {
    let end = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
    while ContinuousClock.now < end {
        if condition() { return ContinuousClock.now }
        usleep(100_000)
    }
    return nil
}

func seconds(_ duration: Duration) -> String {
    String(format: "%.1f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
}
