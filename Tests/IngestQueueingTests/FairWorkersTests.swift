import Foundation
import Synchronization
import TestSupport
import Testing

@testable import IngestServer

/// The validator threads: apps in turn, and a thread always left for another app.
@Suite("Fair workers")
struct FairWorkersTests {
    @Test func anotherAppsWorkRunsWhileOneAppFillsTheQueue() {
        let workers = FairWorkers(threads: 3, name: "test")
        let release = DispatchSemaphore(value: 0)
        let started = Mutex<[String]>([])
        let flood = 20
        for i in 0..<flood {
            workers.submit(app: "flood") {
                started.withLock { $0.append("flood\(i)") }
                release.wait()
            }
        }
        let quick = DispatchSemaphore(value: 0)
        workers.submit(app: "quiet") {
            started.withLock { $0.append("quiet") }
            quick.signal()
        }
        workers.start()
        // The flood's pieces block until released: the quiet app still gets a thread.
        #expect(quick.wait(timeout: .now() + 60) == .success)
        // All threads but one: the second flood thread may start after the quiet piece ran, but
        // none takes the thread left for others.
        let floods = { started.withLock { $0.filter { $0.hasPrefix("flood") }.count } }
        waitUntil { floods() >= 2 }
        usleep(200_000)
        #expect(floods() == 2)
        for _ in 0..<flood { release.signal() }
        workers.drainAndStop()
        #expect(started.withLock { $0.count } == flood + 1)
        #expect(workers.submit(app: "late") {} == false)
    }

    @Test func anAppAloneUsesEveryThread() {
        let workers = FairWorkers(threads: 3, name: "test")
        let release = DispatchSemaphore(value: 0)
        let running = Mutex(0)
        for _ in 0..<3 {
            workers.submit(app: "alone") {
                running.withLock { $0 += 1 }
                release.wait()
            }
        }
        workers.start()
        #expect(eventually { running.withLock { $0 } == 3 })
        for _ in 0..<3 { release.signal() }
        workers.drainAndStop()
    }
}
