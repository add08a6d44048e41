import Foundation
import Testing

@testable import HTTPServer

/// The per-address upload cap's bookkeeping, without sockets: every connection here has no peer
/// address (descriptor -1), so all of them count against one address.
@Suite struct ConnectionGuardTests {
    func makeGuard(uploadsPerAddress: Int) -> ConnectionGuard {
        ConnectionGuard(
            headerDeadline: .seconds(60), keepAliveDeadline: .seconds(60), shedThreshold: 100,
            uploadsPerAddress: uploadsPerAddress)
    }

    @Test func anAddressHoldsAtMostItsCapOfUploadsAtOnce() {
        let tracker = makeGuard(uploadsPerAddress: 2)
        for id in 1...6 { tracker.started(id, socket: -1) }
        #expect(tracker.uploadStarting(1))
        #expect(tracker.uploadStarting(2))
        #expect(!tracker.uploadStarting(3))
    }

    @Test func everyWayAnUploadEndsFreesItsPlace() {
        let tracker = makeGuard(uploadsPerAddress: 2)
        for id in 1...6 { tracker.started(id, socket: -1) }
        #expect(tracker.uploadStarting(1) && tracker.uploadStarting(2))
        tracker.uploadEnded(1)
        #expect(tracker.uploadStarting(3))
        #expect(!tracker.uploadStarting(4))
        tracker.answered(2)
        #expect(tracker.uploadStarting(4))
        tracker.closed(3)
        #expect(tracker.uploadStarting(5))
        #expect(!tracker.uploadStarting(6))
        // An upload ended twice (its body done, then its answer) frees one place, not two.
        tracker.uploadEnded(4)
        tracker.answered(4)
        #expect(tracker.uploadStarting(6))
        #expect(!tracker.uploadStarting(1))
        #expect(tracker.open == 6 - 1)
    }
}
