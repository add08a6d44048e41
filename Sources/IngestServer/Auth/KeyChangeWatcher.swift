import Foundation
import PushLedgerSupport
import Store
import Synchronization

/// Hears every key change as it commits (`LISTEN` on a session of its own, on the database that
/// holds the keys) and has the verifier read the keys at once, so a created, rotated or revoked
/// key takes effect at every running server within a second. When the session is lost it
/// reconnects every `retryInterval` and reads the keys again on reconnecting (changes may have
/// been missed meanwhile); the periodic reload goes on regardless.
final class KeyChangeWatcher: Sendable {
    private let store: any IngestStore
    private let keys: KeyVerifier
    private let logger: Logger
    private let retryInterval: Duration
    private let stopped = Atomic<Bool>(false)
    private let listening = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// How long one wait for a change lasts before `stop` is looked at again.
    private static let wakeInterval: Duration = .milliseconds(250)

    init(store: any IngestStore, keys: KeyVerifier, logger: Logger, retryInterval: Duration) {
        self.store = store
        self.keys = keys
        self.logger = logger
        self.retryInterval = retryInterval
    }

    /// True while the listening session is up.
    var isListening: Bool { listening.load(ordering: .relaxed) }

    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "pushledger-key-changes"
        thread.start()
    }

    /// Ends the session; waits for the thread a little (a connection attempt under way may
    /// take longer and then ends by itself).
    func stop() {
        stopped.store(true, ordering: .relaxed)
        _ = finished.wait(timeout: .now() + 2)
    }

    private func run() {
        var failures = 0
        while !stopped.load(ordering: .relaxed) {
            do throws(StoreError) {
                guard let listener = try store.listenForKeyChanges() else { return }
                listening.store(true, ordering: .relaxed)
                logger.log(failures == 0 ? .debug : .info, "listening for key changes", [:])
                failures = 0
                keys.reloadSoon()
                while !stopped.load(ordering: .relaxed) {
                    do {
                        if try listener.waitForChange(timeout: Self.wakeInterval) { keys.reloadSoon() }
                    } catch {
                        throw StoreError(error)
                    }
                }
            } catch {
                listening.store(false, ordering: .relaxed)
                // Once per outage at warning level; the attempts that follow only at debug.
                logger.log(
                    failures == 0 ? .warning : .debug, "key change listener lost; periodic key reloads go on",
                    ["error": error.description])
                failures += 1
                pause()
            }
        }
        listening.store(false, ordering: .relaxed)
    }

    /// Sleeps `retryInterval`, waking early when stopped.
    private func pause() {
        let deadline = ContinuousClock.now + retryInterval
        while !stopped.load(ordering: .relaxed), ContinuousClock.now < deadline {
            usleep(50_000)
        }
    }
}
