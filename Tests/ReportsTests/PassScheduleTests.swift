import Foundation
import Reports
import Testing

/// When the follower starts its next pass (docs/rollups.md "Following"), without a database.
@Suite struct PassScheduleTests {
    let schedule = PassSchedule(period: 30, quiet: 3)

    func seen(
        start: TimeInterval, end: TimeInterval, took: TimeInterval = 2, waiting: Bool = true, changed: TimeInterval
    ) -> PassSchedule.Observation {
        .init(sinceStart: start, sinceEnd: end, lastPassSeconds: took, waiting: waiting, sinceQueueChanged: changed)
    }

    @Test func aPassIsDueOnePeriodAfterTheLastStartedWhateverWaits() {
        #expect(schedule.isDue(seen(start: 30, end: 28, waiting: false, changed: 0)))
        #expect(schedule.isDue(seen(start: 31, end: 29, waiting: true, changed: 0)))
        #expect(!schedule.isDue(seen(start: 29.9, end: 27.9, waiting: false, changed: 27.9)))
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

    @Test func anEarlyPassKeepsAGapAsLongAsTheLastPassTook() {
        // The last pass took 10 s: an early one no sooner than 10 s after it ended.
        #expect(!schedule.isDue(seen(start: 15, end: 5, took: 10, changed: 5)))
        #expect(schedule.isDue(seen(start: 20, end: 10, took: 10, changed: 5)))
        // ... and never sooner than the quiet interval after it ended.
        #expect(!schedule.isDue(seen(start: 2.5, end: 2, took: 0.5, changed: 3)))
    }

    @Test func itLooksAgainEveryQuietIntervalOrWhenThePeriodEnds() {
        #expect(schedule.nextLook(seen(start: 10, end: 8, changed: 1)) == 3)
        #expect(schedule.nextLook(seen(start: 29, end: 27, changed: 1)) == 1)
        #expect(schedule.nextLook(seen(start: 31, end: 29, changed: 1)) == 0.01)
    }

    @Test func theQuietIntervalNeverExceedsThePeriod() {
        #expect(PassSchedule(period: 0.5, quiet: 1).quiet == 0.5)
        #expect(PassSchedule(period: 30, quiet: 3).quiet == 3)
    }
}
