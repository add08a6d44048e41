import Foundation
import PushLedgerSupport
import Synchronization
import Testing

@testable import IngestServer

@Suite struct KeyVerifierTests {
    private func record(_ key: String, revoked: Bool = false) -> KeyRecord {
        KeyRecord(id: key, hash: SHA256.hash(Array(key.utf8)), appID: "app", scope: "telemetry", revoked: revoked)
    }

    /// The verdict `confirm` gives, waiting for it.
    private func confirmed(
        _ verifier: KeyVerifier, _ key: String, arrived: ContinuousClock.Instant = .now
    ) -> KeyVerifier.Verdict {
        let verdict = Mutex<KeyVerifier.Verdict?>(nil)
        let done = DispatchSemaphore(value: 0)
        verifier.confirm(key, arrived: arrived) { found in
            verdict.withLock { $0 = found }
            done.signal()
        }
        done.wait()
        return verdict.withLock { $0! }
    }

    @Test func aKeyCreatedAfterTheLastLoadIsAcceptedOnItsFirstRequest() {
        let stored = Mutex<[KeyRecord]>([])
        let verifier = KeyVerifier(loader: { stored.withLock { $0 } })
        verifier.replace(with: [])
        stored.withLock { $0 = [record("pl_t_new")] }
        // The table's word is unknown; the fresh read says otherwise, and the table keeps it.
        #expect(verifier.verify("pl_t_new") == .unknown)
        #expect(confirmed(verifier, "pl_t_new") == .valid(record("pl_t_new")))
        #expect(verifier.verify("pl_t_new") == .valid(record("pl_t_new")))
        #expect(confirmed(verifier, "pl_t_never") == .unknown)
    }

    @Test func aRequestIsAnsweredOnlyByAReadThatStartedAfterItArrived() {
        // The first read takes the table as it is when the read starts, then waits for the test.
        let stored = Mutex<[KeyRecord]>([])
        let reading = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let calls = Mutex(0)
        let verifier = KeyVerifier(
            loader: {
                let snapshot = stored.withLock { $0 }
                if calls.withLock({
                    $0 += 1
                    return $0
                }) == 1 {
                    reading.signal()
                    release.wait()
                }
                return snapshot
            }, readInterval: .zero)
        verifier.replace(with: [])
        let first = Mutex<KeyVerifier.Verdict?>(nil)
        let second = Mutex<KeyVerifier.Verdict?>(nil)
        let group = DispatchGroup()
        group.enter()
        verifier.confirm("pl_t_new", arrived: .now) { verdict in
            first.withLock { $0 = verdict }
            group.leave()
        }
        reading.wait()
        // Created while the first read runs: that read cannot have seen it, the next one does.
        stored.withLock { $0 = [record("pl_t_new")] }
        group.enter()
        verifier.confirm("pl_t_new", arrived: .now) { verdict in
            second.withLock { $0 = verdict }
            group.leave()
        }
        release.signal()
        group.wait()
        #expect(first.withLock { $0 } == .unknown)
        #expect(second.withLock { $0 } == .valid(record("pl_t_new")))
        #expect(calls.withLock { $0 } == 2)
    }

    @Test func aFloodOfUnknownKeysSharesAFewReads() {
        let calls = Mutex(0)
        let verifier = KeyVerifier(
            loader: {
                calls.withLock { $0 += 1 }
                return [self.record("pl_t_known")]
            }, readInterval: .milliseconds(200))
        verifier.replace(with: [record("pl_t_known")])
        let started = ContinuousClock.now
        let answers = Mutex<[KeyVerifier.Verdict]>([])
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 2_000) { i in
            group.enter()
            verifier.confirm("pl_t_guess\(i)", arrived: .now) { verdict in
                answers.withLock { $0.append(verdict) }
                group.leave()
            }
            // Known keys are answered from memory whatever the flood does.
            if i % 100 == 0 { #expect(verifier.verify("pl_t_known") == .valid(record("pl_t_known"))) }
        }
        group.wait()
        let elapsed = ContinuousClock.now - started
        #expect(answers.withLock { $0.count } == 2_000 && answers.withLock { $0.allSatisfy { $0 == .unknown } })
        // One read per 200 ms at most, plus the one that starts at once.
        let bound = Int(elapsed / .milliseconds(200)) + 1
        #expect(calls.withLock { $0 } <= bound && calls.withLock { $0 } >= 1)
        #expect(verifier.freshReads == calls.withLock { $0 })
    }

    @Test func knownKeysNeverWaitForAStuckRead() {
        let release = DispatchSemaphore(value: 0)
        let verifier = KeyVerifier(
            loader: {
                release.wait()
                return [self.record("pl_t_known")]
            }, readInterval: .zero)
        verifier.replace(with: [record("pl_t_known")])
        let answered = DispatchSemaphore(value: 0)
        verifier.confirm("pl_t_guess", arrived: .now) { _ in answered.signal() }
        while !verifier.isReloading { usleep(1_000) }
        for _ in 0..<100 { #expect(verifier.verify("pl_t_known") == .valid(record("pl_t_known"))) }
        #expect(answered.wait(timeout: .now() + 0.05) == .timedOut)
        release.signal()
        answered.wait()
    }

    @Test func aFailedFreshReadLeavesTheKeyUndecidedAndKeepsTheTable() {
        let verifier = KeyVerifier(loader: { nil })
        verifier.replace(with: [record("pl_t_a")])
        #expect(confirmed(verifier, "pl_t_b") == .unavailable)
        #expect(verifier.verify("pl_t_a") == .valid(record("pl_t_a")))
        #expect(confirmed(verifier, "pl_t_a") == .valid(record("pl_t_a")))
    }

    @Test func anAnnouncedChangeIsReadWithoutARequestWaiting() {
        let stored = Mutex<[KeyRecord]>([record("pl_t_a")])
        let verifier = KeyVerifier(loader: { stored.withLock { $0 } })
        verifier.replace(with: [record("pl_t_a")])
        stored.withLock { $0 = [] }  // revoked
        verifier.reloadSoon()
        while verifier.isReloading { usleep(1_000) }
        #expect(verifier.verify("pl_t_a") == .unknown)
        #expect(verifier.freshReads == 1)
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
