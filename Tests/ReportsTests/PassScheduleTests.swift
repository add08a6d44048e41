import Foundation
import Reports
import Testing

@testable import OutcomeEngine

/// When the follower starts its next pass (docs/rollups.md "Following"), without a database.
@Suite struct PassScheduleTests {
    let schedule = PassSchedule(period: 30, quiet: 3)

    func seen(
        start: TimeInterval, end: TimeInterval, took: TimeInterval = 2, waiting: Bool = true, changed: TimeInterval,
        writing: Bool = true, announced: Bool = false, lastAnnounced: Bool = false
    ) -> PassSchedule.Observation {
        .init(
            sinceStart: start, sinceEnd: end, lastPassSeconds: took, waiting: waiting, sinceQueueChanged: changed,
            othersWriting: writing, idleAnnounced: announced, lastWasAnnounced: lastAnnounced)
    }

    @Test func aPassIsDueOnePeriodAfterTheLastStartedWhateverWaits() {
        #expect(schedule.isDue(seen(start: 30, end: 28, waiting: false, changed: 0)))
        #expect(schedule.isDue(seen(start: 31, end: 29, waiting: true, changed: 0)))
        #expect(!schedule.isDue(seen(start: 29.9, end: 27.9, waiting: false, changed: 27.9)))
    }

    /// A pass due by the period runs beside ingest: one connection. A pass started once ingest
    /// paused or ended classifies on two.
    @Test func onlyPassesAfterIngestStoppedUseASecondConnection() {
        let period = schedule.trigger(seen(start: 31, end: 29, changed: 0.1))
        let paused = schedule.trigger(seen(start: 8, end: 6, changed: 3))
        let announced = schedule.trigger(seen(start: 8, end: 6, changed: 0.01, writing: false, announced: true))
        #expect(period == .period && paused == .quiet && announced == .announced)
        #expect(period?.usesSecondConnection == false)
        #expect(paused?.usesSecondConnection == true && announced?.usesSecondConnection == true)
        #expect(
            PassSchedule.Trigger.settled.usesSecondConnection && PassSchedule.Trigger.confirmation.usesSecondConnection)
    }

    @Test func whileInputsKeepArrivingThePassWaitsForThePeriod() {
        // Queued a moment ago: ingest goes on, one large pass later judges each send once.
        #expect(!schedule.isDue(seen(start: 20, end: 18, changed: 0.5)))
        #expect(!schedule.isDue(seen(start: 20, end: 18, changed: 2.9)))
    }

    @Test func onceIngestPausesWaitingInputsAreRolledUpAtOnce() {
        #expect(schedule.isDue(seen(start: 8, end: 6, changed: 3)))
        // Nothing waits (nothing due): no early pass.
        #expect(!schedule.isDue(seen(start: 8, end: 6, waiting: false, changed: 6)))
    }

    @Test func onceIngestGoesIdleWaitingInputsAreRolledUpWithinTheSettleInterval() {
        // Nothing queued for a quarter second and nobody writing: ingest ended.
        #expect(schedule.isDue(seen(start: 8, end: 6, changed: 0.25, writing: false)))
        #expect(!schedule.isDue(seen(start: 8, end: 6, changed: 0.2, writing: false)))
        // A transaction still writing: its inputs are on their way, keep waiting for the quiet interval.
        #expect(!schedule.isDue(seen(start: 8, end: 6, changed: 1, writing: true)))
        #expect(schedule.isDue(seen(start: 8, end: 6, changed: 3, writing: true)))
        // Idle, but nothing waits, or too soon after the last pass: no early pass.
        #expect(!schedule.isDue(seen(start: 8, end: 6, waiting: false, changed: 6, writing: false)))
        #expect(!schedule.isDue(seen(start: 4, end: 2, changed: 1, writing: false)))
    }

    @Test func whenTheWritersAnnounceIdleInputsAreRolledUpWithoutSettling() {
        #expect(schedule.trigger(seen(start: 8, end: 6, changed: 0.01, writing: false, announced: true)) == .announced)
        // Another transaction still writing (another server, an import), nothing waiting, or too
        // soon after the last pass: no early pass.
        #expect(schedule.trigger(seen(start: 8, end: 6, changed: 0.01, writing: true, announced: true)) == nil)
        #expect(
            schedule.trigger(seen(start: 8, end: 6, waiting: false, changed: 0.01, writing: false, announced: true))
                == nil)
        #expect(schedule.trigger(seen(start: 4, end: 2, changed: 0.01, writing: false, announced: true)) == nil)
        // A pass started on the announcement is followed by one a settle interval after it ends,
        // whatever waits or writes: one that began after the last clients read their answers.
        #expect(
            schedule.trigger(seen(start: 2, end: 0.25, waiting: false, changed: 0, lastAnnounced: true))
                == .confirmation)
        #expect(schedule.trigger(seen(start: 2, end: 0.2, waiting: false, changed: 0, lastAnnounced: true)) == nil)
        #expect(schedule.trigger(seen(start: 2, end: 0.25, waiting: false, changed: 0)) == nil)
        // Each way a pass comes due says so.
        #expect(schedule.trigger(seen(start: 30, end: 28, waiting: false, changed: 0)) == .period)
        #expect(schedule.trigger(seen(start: 8, end: 6, changed: 3)) == .quiet)
        #expect(schedule.trigger(seen(start: 8, end: 6, changed: 0.25, writing: false)) == .settled)
    }

    @Test func theSettleIntervalNeverExceedsTheQuietOne() {
        #expect(PassSchedule(period: 2, quiet: 1, settle: 2).settle == 1)
        #expect(PassSchedule(period: 30, quiet: 3).settle == 0.25)
    }

    @Test func anEarlyPassKeepsAGapAsLongAsTheLastPassTook() {
        // The last pass took 10 s: an early one no sooner than 10 s after it ended.
        #expect(!schedule.isDue(seen(start: 15, end: 5, took: 10, changed: 5)))
        #expect(schedule.isDue(seen(start: 20, end: 10, took: 10, changed: 5)))
        // ... and never sooner than the quiet interval after it ended.
        #expect(!schedule.isDue(seen(start: 2.5, end: 2, took: 0.5, changed: 3)))
    }

    @Test func itLooksAgainEveryHalfSettleIntervalOrWhenThePeriodEnds() {
        #expect(schedule.nextLook(seen(start: 10, end: 8, changed: 1)) == 0.125)
        #expect(abs(schedule.nextLook(seen(start: 29.9, end: 27.9, changed: 1)) - 0.1) < 1e-9)
        #expect(schedule.nextLook(seen(start: 31, end: 29, changed: 1)) == 0.01)
    }

    /// The follower's loop between passes, looking as the schedule says: the queue's count is
    /// seen to change at the first look after each input. Returns when the next pass starts.
    func passStart(
        lastInputAt: TimeInterval, passEndedAt: TimeInterval, took: TimeInterval, writingUntil: TimeInterval? = nil
    ) -> TimeInterval {
        var now = passEndedAt, changedSeenAt = passEndedAt, lastSeenInput = passEndedAt
        while true {
            if lastInputAt > lastSeenInput && lastInputAt <= now {
                lastSeenInput = lastInputAt
                changedSeenAt = now
            }
            let observation = seen(
                start: now - passEndedAt + took, end: now - passEndedAt, took: took,
                waiting: lastSeenInput > passEndedAt, changed: now - changedSeenAt,
                writing: writingUntil.map { now < $0 } ?? true)
            if schedule.isDue(observation) { return now }
            now += schedule.nextLook(observation)
        }
    }

    @Test func aPassStartsAtMostALookAfterTheQuietIntervalFollowingTheLastInput() {
        for lastInput in stride(from: 0.1, through: 12, by: 0.35) {
            let start = passStart(lastInputAt: lastInput, passEndedAt: 0, took: 2)
            #expect(start >= lastInput + schedule.quiet, "last input at \(lastInput)")
            #expect(start <= lastInput + schedule.quiet + schedule.look + 1e-9, "last input at \(lastInput)")
        }
    }

    @Test func onceTheLastWriterCommitsAPassStartsWithinTheSettleIntervalAndALook() {
        for lastInput in stride(from: 3.1, through: 12, by: 0.35) {
            let start = passStart(lastInputAt: lastInput, passEndedAt: 0, took: 2, writingUntil: lastInput)
            #expect(start >= lastInput + schedule.settle, "last input at \(lastInput)")
            #expect(start <= lastInput + schedule.settle + schedule.look + 1e-9, "last input at \(lastInput)")
        }
    }

    @Test func theQuietIntervalNeverExceedsThePeriod() {
        #expect(PassSchedule(period: 0.5, quiet: 1).quiet == 0.5)
        #expect(PassSchedule(period: 30, quiet: 3).quiet == 3)
    }
}
