import Dispatch
import Postgres
import Synchronization
import TestSupport
import Testing

@Suite struct ConnectionPoolTests {
    @Test func workersShareAFewConnections() throws {
        let pool = ConnectionPool(url: try TestDatabase.empty(prefix: "pool"), maxConnections: 3)
        let pids = Mutex<Set<Int>>([])
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 40) { i in
            do {
                let pid = try pool.withConnection { c in
                    try c.query("select \(i)::int8 as v")[0].decode("v", as: Int.self) == i ? c.backendPID : -1
                }
                pids.withLock { _ = $0.insert(pid) }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let used = pids.withLock { $0 }
        #expect(!used.contains(-1))
        #expect(used.count <= 3)
    }

    @Test func brokenConnectionsAreReplaced() throws {
        let url = try TestDatabase.empty(prefix: "pool")
        let pool = ConnectionPool(url: url, maxConnections: 1)
        let first = try pool.withConnection { $0.backendPID }
        let killer = try Connection.connect(url: url)
        try killer.execute("select pg_terminate_backend(\(Int32(first)))")
        let error = #expect(throws: PostgresError.self) { try pool.withConnection { try $0.query("select 1") } }
        #expect(error?.isConnectionProblem == true)
        let second = try pool.withConnection { $0.backendPID }
        #expect(second != first)
    }

    @Test func unreachableDatabaseFailsEachBorrow() {
        let pool = ConnectionPool(url: "postgres://x@127.0.0.1:1/none", maxConnections: 2)
        for _ in 0..<3 {
            #expect(throws: PostgresError.self) { try pool.withConnection { _ in 1 } }
        }
    }
}
