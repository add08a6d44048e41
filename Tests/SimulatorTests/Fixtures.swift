import Foundation

@testable import Simulator

/// Small fleets for tests: a fixed fortnight so results never depend on the clock.
enum Fixtures {
    static let startMs: Int64 = 20_400 * 86_400_000  // 2025-11-08, a UTC midnight

    static func config(installs: Int = 300, seed: UInt64 = 7, injections: [Injection] = []) -> SimulationConfig {
        var config = SimulationConfig(startMs: startMs)
        config.installs = installs
        config.seed = seed
        config.injections = injections
        return config
    }

    static func dayString(_ day: Int) -> String {
        String(SimTime.rfc3339(startMs + Int64(day) * SimTime.msPerDay).prefix(10))
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw FixtureError.notAnObject
        }
        return object
    }

    /// The send objects of a batch, JSON or NDJSON.
    static func sends(_ batch: SendsBatch) throws -> [[String: Any]] {
        if batch.contentType == "application/x-ndjson" {
            return try batch.body.split(separator: 10).map { try object(Array($0)) }
        }
        guard let list = try object(batch.body)["sends"] as? [[String: Any]] else { throw FixtureError.notAnObject }
        return list
    }

    /// Parses the fixed "YYYY-MM-DDTHH:MM:SS.mmmZ" layout with libc's timegm (independent of SimTime).
    static func ms(_ text: Any?) throws -> Int64 {
        guard let text = text as? String, text.utf8.count == 24, text.hasSuffix("Z") else {
            throw FixtureError.badTime("\(String(describing: text))")
        }
        let b = Array(text.utf8)
        func n(_ from: Int, _ count: Int) -> Int32 { b[from..<(from + count)].reduce(0) { $0 * 10 + Int32($1 - 48) } }
        var parts = tm()
        parts.tm_year = n(0, 4) - 1_900
        parts.tm_mon = n(5, 2) - 1
        parts.tm_mday = n(8, 2)
        parts.tm_hour = n(11, 2)
        parts.tm_min = n(14, 2)
        parts.tm_sec = n(17, 2)
        return Int64(timegm(&parts)) * 1_000 + Int64(n(20, 3))
    }

    enum FixtureError: Error { case notAnObject, badTime(String), missing(String) }
}
