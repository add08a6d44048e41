import Foundation
import Postgres
import PushLedgerContract
import Store
import Testing

/// Throughput of the writer on a realistic mix; run with PUSHLEDGER_BENCH=1 (prints figures,
/// asserts only correctness — timings are never asserted).
@Suite struct WriterBenchmark {
    typealias F = Fixture

    @Test(.enabled(if: ProcessInfo.processInfo.environment["PUSHLEDGER_BENCH"] != nil))
    func mixedBatches() throws {
        let db = try StoreDatabase()
        let backend: Int = try db.value("select pg_backend_pid()")
        let cpuBefore = (client: Self.clientCPU(), server: Self.processCPU(pid: backend))
        let batches = 20, unitsPerBatch = 50, eventsPerUnit = 100
        var total = 0
        var seconds = 0.0
        var n = 0
        for batch in 0..<batches {
            var units: [IngestUnit] = []
            for u in 0..<unitsPerBatch {
                let installation = F.installation(batch * unitsPerBatch + u)
                if u % 5 == 4 {
                    units.append(
                        F.sends(
                            (0..<eventsPerUnit).map { i in
                                n += 1
                                return F.send(n, notification: n, at: Double(i) / 100, token: "tok-\(u)-\(batch)")
                            }))
                    continue
                }
                let events: [TelemetryEvent] = (0..<eventsPerUnit).map { i in
                    n += 1
                    let payload: TelemetryPayload =
                        switch i % 4 {
                        case 0:
                            F.androidSettings(
                                enabled: true,
                                channels: [
                                    ChannelState(id: "orders", importance: 3),
                                    ChannelState(id: "promo", importance: 0),
                                ])
                        case 1: F.received(n)
                        case 2: F.opened(n)
                        default: F.token("tok-\(u)-\(batch)")
                        }
                    return F.event(n, at: Double(i) / 100, payload)
                }
                units.append(F.telemetry(F.envelope(installation: installation), events))
            }
            let start = Date()
            let outcomes = try EventWriter().write(units, on: db.connection)
            seconds += Date().timeIntervalSince(start)
            total += outcomes.reduce(0) { $0 + $1.accepted }
        }
        #expect(total == batches * unitsPerBatch * eventsPerUnit)
        let client = Self.clientCPU() - cpuBefore.client
        let server = Self.processCPU(pid: backend) - cpuBefore.server
        print(
            """
            writer: \(total) events in \(String(format: "%.2f", seconds)) s = \(Int(Double(total) / seconds)) \
            events/s;
            """,
            "CPU: client \(String(format: "%.2f", client)) s, Postgres backend \(String(format: "%.2f", server)) s",
            "= \(Int(Double(total) / max(server, 0.001))) events per backend CPU-second")
    }

    /// CPU seconds of this process (the machine is shared: wall time says little).
    static func clientCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU seconds of a local process from /proc (the Postgres backend serving the writer).
    static func processCPU(pid: Int) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based, man proc).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
