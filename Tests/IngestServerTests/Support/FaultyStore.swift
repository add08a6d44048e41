import Foundation
import PushLedgerContract
import Store
import Synchronization

@testable import IngestServer

/// The real Postgres store behind switches: it can pretend the database is unreachable or
/// failing, and hold writers at a gate so tests can fill the queue deterministically.
final class FaultyStore: IngestStore {
    struct State {
        /// Calls fail as a connection problem (503) without reaching the database.
        var down = false
        /// Writes fail with a non-connection error (a bug or constraint): 500.
        var failing = false
        /// Units per successful `write`, in order.
        var batchSizes: [Int] = []
        /// A `write` holding a telemetry unit of this installation fails as the database
        /// refusing a row would (a poison unit the validators let through).
        var poison: UUID?
        /// `write` calls, failed ones included (transactions tried).
        var writes = 0
    }

    let state = Mutex(State())
    private let inner: any IngestStore
    private let gate = NSCondition()
    nonisolated(unsafe) private var waitingAtGate = 0
    nonisolated(unsafe) private var open = true
    private let probeGate = NSCondition()
    nonisolated(unsafe) private var probeHeld = false

    init(_ inner: any IngestStore) {
        self.inner = inner
    }

    func write(_ units: [IngestUnit]) throws(StoreError) -> [WriteOutcome] {
        try write(units, deferringDerived: false)
    }

    func write(_ units: [IngestUnit], deferringDerived: Bool) throws(StoreError) -> [WriteOutcome] {
        try injectFaults()
        let poison = state.withLock { state -> UUID? in
            state.writes += 1
            return state.poison
        }
        if let poison,
            units.contains(where: { unit in
                if case .telemetry(let validated, _) = unit { return validated.envelope.installationID == poison }
                return false
            })
        {
            throw StoreError(isConnectionProblem: false, sqlState: "22008", description: "datetime field overflow")
        }
        let outcomes = try inner.write(units, deferringDerived: deferringDerived)
        state.withLock { $0.batchSizes.append(units.count) }
        return outcomes
    }

    var defersDerived: Bool { inner.defersDerived }

    func applyDerived() throws(StoreError) -> Int {
        if state.withLock({ $0.down }) { throw Self.unreachable }
        return try inner.applyDerived()
    }

    func wentIdle() throws(StoreError) -> Int {
        if state.withLock({ $0.down }) { throw Self.unreachable }
        return try inner.wentIdle()
    }

    func dryRun(_ units: [IngestUnit]) throws(StoreError) -> [WriteOutcome] {
        try injectFaults()
        return try inner.dryRun(units)
    }

    private func injectFaults() throws(StoreError) {
        passGate()
        let faults = state.withLock { ($0.down, $0.failing) }
        if faults.0 { throw Self.unreachable }
        if faults.1 { throw StoreError(isConnectionProblem: false, sqlState: "XX000", description: "internal error") }
    }

    func ping() throws(StoreError) {
        if state.withLock({ $0.down }) { throw Self.unreachable }
        try inner.ping()
    }

    func probeCommit() throws(StoreError) {
        probeGate.withLock { while probeHeld { probeGate.wait() } }
        if state.withLock({ $0.down }) { throw Self.unreachable }
        try inner.probeCommit()
    }

    /// Holds the readiness probe's commits (as a primary waiting for its synchronous standby
    /// holds every commit) until `releaseProbe()`.
    func holdProbe() { probeGate.withLock { probeHeld = true } }

    func releaseProbe() {
        probeGate.withLock {
            probeHeld = false
            probeGate.broadcast()
        }
    }

    func loadKeys() throws(StoreError) -> [KeyRecord] {
        if state.withLock({ $0.down }) { throw Self.unreachable }
        return try inner.loadKeys()
    }

    func listenForKeyChanges() throws(StoreError) -> KeyChangeListener? {
        if state.withLock({ $0.down }) { throw Self.unreachable }
        return try inner.listenForKeyChanges()
    }

    func invalidTokens(appID: String, query: InvalidTokenFeed.Query) throws(StoreError) -> InvalidTokenFeed.Page {
        let faults = state.withLock { ($0.down, $0.failing) }
        if faults.0 { throw Self.unreachable }
        if faults.1 { throw StoreError(isConnectionProblem: false, sqlState: "XX000", description: "internal error") }
        return try inner.invalidTokens(appID: appID, query: query)
    }

    func rollupLag() throws(StoreError) -> Double? {
        if state.withLock({ $0.down }) { throw Self.unreachable }
        return try inner.rollupLag()
    }

    func recordKeyUse(_ uses: [(id: String, at: Date)]) throws(StoreError) {
        if state.withLock({ $0.down }) { throw Self.unreachable }
        try inner.recordKeyUse(uses)
    }

    private static let unreachable = StoreError(isConnectionProblem: true, description: "connection refused")

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
