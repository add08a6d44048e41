import Foundation

/// Runs `body` on a thread of its own with a small stack, entered in `group` until it ends: the
/// load generators' clients are many and mostly wait.
func spawnClient(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
    group.enter()
    let thread = Thread {
        body()
        group.leave()
    }
    thread.stackSize = 256 * 1024
    thread.start()
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
