import Dispatch
import Foundation
import PushLedgerCore
import Synchronization

@testable import IngestServer

/// An in-memory `IngestStore` for the HTTP-layer tests: de-duplicates by (app, event id) like
/// the real writer, can be switched "down", and can hold writers at a gate.
final class MemoryStore: IngestStore {
    struct State {
        var stored: Set<String> = []
        var keys: [KeyRecord] = []
        var down = false
        /// Writes fail with a non-connection error (a bug or constraint): 500.
        var failing = false
        var failedRequests: [IngestUnit] = []
        var batchSizes: [Int] = []
        var gateClosed = false
    }

    let state = Mutex(State())

    /// A store that knows `TestKeys`.
    init(keys: [KeyRecord] = TestKeys.records) {
        state.withLock { $0.keys = keys }
    }
    private let gate = NSCondition()
    nonisolated(unsafe) private var waitingAtGate = 0
    nonisolated(unsafe) private var open = true

    func write(_ units: [IngestUnit]) throws(StoreError) -> [WriteOutcome] {
        passGate()
        return try state.withLock { state throws(StoreError) -> [WriteOutcome] in
            guard !state.down else { throw StoreError(isConnectionProblem: true, description: "connection refused") }
            guard !state.failing else { throw StoreError(isConnectionProblem: false, sqlState: "XX000", description: "internal error") }
            state.batchSizes.append(units.count)
            return units.map { unit in
                var outcome = WriteOutcome(accepted: 0, duplicates: 0)
                let ids: [(String, UUID)]
                switch unit {
                case .telemetry(let validated, _): ids = validated.events.map { (validated.envelope.appID, $0.eventID) }
                case .sends(let validated, let app, _): ids = validated.sends.map { (app, $0.eventID) }
                case .failedRequest:
                    state.failedRequests.append(unit)
                    ids = []
                }
                for (app, id) in ids {
                    if state.stored.insert("\(app)|\(id)").inserted { outcome.accepted += 1 } else { outcome.duplicates += 1 }
                }
                return outcome
            }
        }
    }

    func ping() throws(StoreError) {
        if state.withLock({ $0.down }) { throw StoreError(isConnectionProblem: true, description: "connection refused") }
    }

    func loadKeys() throws(StoreError) -> [KeyRecord] {
        try state.withLock { state throws(StoreError) in
            guard !state.down else { throw StoreError(isConnectionProblem: true, description: "connection refused") }
            return state.keys
        }
    }

    var storedCount: Int { state.withLock { $0.stored.count } }

    // MARK: Gate: hold writers inside `write` to fill the queue deterministically.

    func closeGate() { gate.withLock { open = false } }

    func openGate() {
        gate.withLock {
            open = true
            gate.broadcast()
        }
    }

    /// Blocks until `count` writers wait at the closed gate.
    func waitForWriters(_ count: Int) {
        gate.withLock { while waitingAtGate < count { gate.wait() } }
    }

    private func passGate() {
        gate.withLock {
            waitingAtGate += 1
            gate.broadcast()
            while !open { gate.wait() }
            waitingAtGate -= 1
        }
    }
}
