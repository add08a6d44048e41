import Foundation
import Testing
@testable import Simulator

@Suite("Simulation smoke")
struct SimulationSmokeTests {
    @Test func smallFleetSummary() throws {
        var config = SimulationConfig(startMs: 1_795_000_000_000 / 86_400_000 * 86_400_000)
        config.installs = 2_000
        let started = Date()
        let output = Simulation.generate(config)
        let seconds = Date().timeIntervalSince(started)
        let events = output.truth.telemetryEvents + output.truth.sends
        print("generated \(events) events in \(seconds)s: \(Double(events) / seconds) events/s; batches \(output.telemetry.count) + \(output.sends.count)")
        print(String(decoding: output.truth.json(), as: UTF8.self).prefix(6_000))
        #expect(events > 0)
    }
}
