import Foundation
import PushLedgerSupport
import Synchronization
import Testing

@testable import IngestServer

@Suite struct KeyVerifierTests {
    private func record(_ key: String, revoked: Bool = false) -> KeyRecord {
        KeyRecord(id: key, hash: SHA256.hash(Array(key.utf8)), appID: "app", scope: "telemetry", revoked: revoked)
    }

    @Test func aKeyCreatedAfterTheLastLoadWorksOnItsFirstRequest() {
        let stored = Mutex<[KeyRecord]>([])
        let verifier = KeyVerifier(loader: { stored.withLock { $0 } })
        verifier.replace(with: [])
        stored.withLock { $0 = [record("pl_t_new")] }
        #expect(verifier.verify("pl_t_new") == .valid(record("pl_t_new")))
    }

    @Test func unknownKeysReloadAtMostOnceAnInterval() {
        let calls = Mutex(0)
        let verifier = KeyVerifier(loader: { calls.withLock { $0 += 1 }; return [] }, onDemandInterval: .seconds(3600))
        verifier.replace(with: [record("pl_t_known")])
        for i in 0..<500 { #expect(verifier.verify("pl_t_guess\(i)") == .unknown) }
        #expect(calls.withLock { $0 } == 1)
        // A known key never triggers a reload.
        let quiet = KeyVerifier(loader: { calls.withLock { $0 += 1 }; return nil })
        quiet.replace(with: [record("pl_t_known"), record("pl_t_old", revoked: true)])
        #expect(quiet.verify("pl_t_known") == .valid(record("pl_t_known")))
        #expect(quiet.verify("pl_t_old") == .revoked(record("pl_t_old", revoked: true)))
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func concurrentRequestsWaitForTheReloadInsteadOfFailing() {
        let calls = Mutex(0)
        let verifier = KeyVerifier(loader: {
            calls.withLock { $0 += 1 }
            usleep(100_000)
            return [self.record("pl_t_new")]
        }, onDemandInterval: .seconds(3600))
        verifier.replace(with: [])
        let results = Mutex<[KeyVerifier.Verdict]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let verdict = verifier.verify("pl_t_new")
            results.withLock { $0.append(verdict) }
        }
        #expect(results.withLock { $0 } == Array(repeating: .valid(record("pl_t_new")), count: 8))
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func aFailedReloadKeepsTheTable() {
        let verifier = KeyVerifier(loader: { nil })
        verifier.replace(with: [record("pl_t_a")])
        #expect(verifier.verify("pl_t_b") == .unknown)
        #expect(verifier.verify("pl_t_a") == .valid(record("pl_t_a")))
    }
}
