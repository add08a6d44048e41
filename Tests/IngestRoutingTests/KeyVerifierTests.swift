import Foundation
import PushLedgerSupport
import Synchronization
import Testing

@testable import IngestServer

@Suite struct KeyVerifierTests {
    private func record(_ key: String, revoked: Bool = false) -> KeyRecord {
        KeyRecord(id: key, hash: SHA256.hash(Array(key.utf8)), appID: "app", scope: "telemetry", revoked: revoked)
    }

    @Test func aKeyCreatedAfterTheLastLoadWorksOnceTheReloadItStartedEnds() {
        let stored = Mutex<[KeyRecord]>([])
        let verifier = KeyVerifier(loader: { stored.withLock { $0 } })
        verifier.replace(with: [])
        stored.withLock { $0 = [record("pl_t_new")] }
        #expect(verifier.verify("pl_t_new") == .unknown)
        while verifier.isReloading { usleep(1_000) }
        #expect(verifier.verify("pl_t_new") == .valid(record("pl_t_new")))
    }

    @Test func unknownKeysReloadAtMostOnceAnInterval() {
        let calls = Mutex(0)
        let verifier = KeyVerifier(
            loader: {
                calls.withLock { $0 += 1 }
                return []
            }, onDemandInterval: .seconds(3600))
        verifier.replace(with: [record("pl_t_known")])
        for i in 0..<500 { #expect(verifier.verify("pl_t_guess\(i)") == .unknown) }
        while verifier.isReloading { usleep(1_000) }
        #expect(calls.withLock { $0 } == 1)
        // A known key never triggers a reload.
        let quiet = KeyVerifier(loader: {
            calls.withLock { $0 += 1 }
            return nil
        })
        quiet.replace(with: [record("pl_t_known"), record("pl_t_old", revoked: true)])
        #expect(quiet.verify("pl_t_known") == .valid(record("pl_t_known")))
        #expect(quiet.verify("pl_t_old") == .revoked(record("pl_t_old", revoked: true)))
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func unknownKeysAreAnsweredAtOnceWhileAReloadIsStuck() {
        // The database answers only when the test lets it: no request may wait for it.
        let release = DispatchSemaphore(value: 0)
        let calls = Mutex(0)
        let verifier = KeyVerifier(
            loader: {
                calls.withLock { $0 += 1 }
                release.wait()
                return [self.record("pl_t_new")]
            }, onDemandInterval: .zero)
        verifier.replace(with: [])
        let results = Mutex<[KeyVerifier.Verdict]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let verdict = verifier.verify("pl_t_new")
            results.withLock { $0.append(verdict) }
        }
        #expect(results.withLock { $0 } == Array(repeating: .unknown, count: 8))
        while calls.withLock({ $0 }) == 0 { usleep(1_000) }
        #expect(verifier.verify("pl_t_new") == .unknown)
        #expect(calls.withLock { $0 } == 1)  // one reload at a time
        release.signal()
        while verifier.isReloading { usleep(1_000) }
        #expect(verifier.verify("pl_t_new") == .valid(record("pl_t_new")))
    }

    @Test func aFailedReloadKeepsTheTable() {
        let verifier = KeyVerifier(loader: { nil })
        verifier.replace(with: [record("pl_t_a")])
        #expect(verifier.verify("pl_t_b") == .unknown)
        #expect(verifier.verify("pl_t_a") == .valid(record("pl_t_a")))
    }

    @Test func anExpiredKeyIsToldApartFromAnUnknownOne() {
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let verifier = KeyVerifier(now: { clock.withLock { $0 } })
        var expiring = record("pl_t_old")
        expiring.expiresAt = Date(timeIntervalSince1970: 1_000_060)
        verifier.replace(with: [expiring, record("pl_t_new")])
        #expect(verifier.verify("pl_t_old") == .valid(expiring))
        #expect(verifier.verify("pl_t_new") == .valid(record("pl_t_new")))
        clock.withLock { $0 = Date(timeIntervalSince1970: 1_000_060) }
        #expect(verifier.verify("pl_t_old") == .expired(expiring))
        #expect(verifier.verify("pl_t_new") == .valid(record("pl_t_new")))
    }

    @Test func usesAreHandedOutAtMostOnceAnIntervalPerKey() {
        let start = Date(timeIntervalSince1970: 1_000_000)
        let clock = Mutex(start)
        let verifier = KeyVerifier(flushInterval: 60, now: { clock.withLock { $0 } })
        verifier.replace(with: [record("pl_t_a"), record("pl_t_b")])
        #expect(verifier.usesToFlush().isEmpty)
        for _ in 0..<100 { _ = verifier.verify("pl_t_a") }
        let first = verifier.usesToFlush()
        #expect(first.map(\.id) == ["pl_t_a"] && first.map(\.at) == [start])
        verifier.flushed(first)
        // Used again 10 s later: not flushed before the minute is up, unless at shutdown.
        clock.withLock { $0 = start.addingTimeInterval(10) }
        _ = verifier.verify("pl_t_a")
        _ = verifier.verify("pl_t_b")
        #expect(verifier.usesToFlush().map(\.id) == ["pl_t_b"])
        #expect(verifier.usesToFlush(all: true).map(\.id) == ["pl_t_a", "pl_t_b"])
        clock.withLock { $0 = start.addingTimeInterval(60) }
        let later = verifier.usesToFlush()
        #expect(
            later.map(\.id) == ["pl_t_a", "pl_t_b"]
                && later.map(\.at) == [start.addingTimeInterval(10), start.addingTimeInterval(10)])
        verifier.flushed(later)
        // Nothing new since: nothing to store, however long it has been.
        clock.withLock { $0 = start.addingTimeInterval(600) }
        #expect(verifier.usesToFlush(all: true).isEmpty)
        // Refused keys are no use.
        var expired = record("pl_t_c")
        expired.expiresAt = start
        verifier.replace(with: [expired, record("pl_t_d", revoked: true)])
        _ = verifier.verify("pl_t_c")
        _ = verifier.verify("pl_t_d")
        #expect(verifier.usesToFlush(all: true).isEmpty)
    }
}
