import Dispatch
import Foundation
import Postgres
import PushLedgerCore
import Store
import Synchronization
import Testing

/// Writer workers run side by side: overlapping batches must store each event once and count
/// the rest as duplicates, whoever commits first.
@Suite struct ConcurrentWriterTests {
    typealias F = Fixture

    @Test func overlappingBatchesOnTwoConnectionsStoreEachEventOnce() throws {
        let db = try StoreDatabase()
        let url = db.url
        let results = Mutex<[Result<[WriteOutcome], any Error>]>([])
        // Worker 0 writes events 0..<300, worker 1 writes 200..<500, in opposite orders.
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            let result = Result { () throws -> [WriteOutcome] in
                let connection = try Connection.connect(url: url)
                var range = Array(worker == 0 ? 0..<300 : 200..<500)
                if worker == 1 { range.reverse() }
                let units = stride(from: 0, to: range.count, by: 50).map { start in
                    let env = F.envelope(installation: F.installation(start + worker * 1000))
                    return F.telemetry(env, range[start..<start + 50].map { F.event($0, at: 1, F.received($0)) })
                }
                return try EventWriter().write(units, on: connection)
            }
            results.withLock { $0.append(result) }
        }
        let outcomes = try results.withLock { try $0.flatMap { try $0.get() } }
        #expect(outcomes.reduce(0) { $0 + $1.accepted } == 500)
        #expect(outcomes.reduce(0) { $0 + $1.duplicates } == 100)
        #expect(try db.count("notification_receipts") == 500)
        #expect(try db.count("event_ids") == 500)
    }
}
