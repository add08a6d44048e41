import Foundation
import HTTPClient
import TestSupport
import Testing

/// SIGKILL of the ingestor in the middle of a load, several times: what was acknowledged is
/// stored, what was committed but never answered is de-duplicated on the client's retry.
@Suite("Crash loop")
struct CrashTests {
    @Test func everyAcknowledgedEventIsStoredOnceAcrossRepeatedKills() throws {
        let database = try FaultDatabase.fresh()
        let traffic = AcknowledgedTraffic(database: database, installs: 250, seed: 11)
        var server = try ServeProcess(databaseURL: database.url)
        let port = server.port
        // Retries outlast a restart (the port is refused until the new process listens).
        let run = traffic.post(
            to: server.baseURL, clients: 6,
            policy: RetryPolicy(maxAttempts: 10_000, baseDelay: 0.02, maxDelay: 0.3, maxRetryAfter: 0.3))
        let plannedKills = 4
        var kills = 0
        for round in 1...plannedKills {
            // Kill points spread over the run, each after the clients got some answers.
            waitUntil { traffic.requests >= round * traffic.batchCount / (plannedKills + 2) || run.isFinished }
            guard !run.isFinished else { break }
            server.send(SIGKILL)
            let exit = server.waitForExit()
            #expect(!exit.exited && exit.status == SIGKILL)
            kills += 1
            server = try ServeProcess(databaseURL: database.url, port: port)
        }
        let summary = try run.value()
        let audit = try database.audit(summary.acknowledged)
        #expect(kills == plannedKills, "the load ended before every kill")
        #expect(summary.gaveUp == 0)
        #expect(summary.answered200 == traffic.batchCount)
        #expect(audit.missing == 0)
        #expect(audit.twice == 0)
        // Every batch ended in a 200, so what is stored is exactly what was acknowledged.
        #expect(try database.storedEventIDs() == summary.acknowledged)
        FaultFigures.logger.info(
            "fault figures",
            [
                "test": "crash_loop", "kills": kills, "requests": summary.requests,
                "acknowledged_events": summary.acknowledged.count,
                "events_lost": audit.missing, "stored_twice": audit.twice,
            ])
    }
}
