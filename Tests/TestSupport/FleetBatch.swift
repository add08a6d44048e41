import Foundation
import Simulator

/// One request of a simulated fleet as a test client posts it, with the event ids it carries,
/// for the suites that check what was acknowledged against what is stored.
public struct FleetBatch: Sendable {
    public var path: String
    public var contentType: String
    public var key: String
    public var eventIDs: [String]
    /// The body as sent at `nowMs` (telemetry's `sent_at` is stamped at posting).
    public var body: @Sendable (_ nowMs: Int64) -> [UInt8]

    /// The output's telemetry batches, posted with `key`.
    public static func telemetry(_ output: Simulation.Output, key: String) -> [FleetBatch] {
        output.telemetry.map { batch in
            FleetBatch(
                path: "/v1/telemetry", contentType: "application/json", key: key,
                eventIDs: eventIDs(json: batch.body, list: "events"), body: { batch.stamped(nowMs: $0) })
        }
    }

    /// The output's sends batches (JSON or NDJSON), posted with `key`.
    public static func sends(_ output: Simulation.Output, key: String) -> [FleetBatch] {
        output.sends.map { batch in
            FleetBatch(
                path: "/v1/sends", contentType: batch.contentType, key: key,
                eventIDs: batch.contentType == "application/x-ndjson"
                    ? eventIDs(ndjson: batch.body) : eventIDs(json: batch.body, list: "sends"),
                body: { _ in batch.body })
        }
    }

    /// The `event_id`s of the objects in `list` of a JSON body, lowercased.
    static func eventIDs(json body: [UInt8], list: String) -> [String] {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        return (object?[list] as? [[String: Any]] ?? []).map { ($0["event_id"] as? String ?? "").lowercased() }
    }

    /// The `event_id` of each line of an NDJSON body, lowercased.
    static func eventIDs(ndjson body: [UInt8]) -> [String] {
        body.split(separator: 10).map { line in
            let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
            return (object?["event_id"] as? String ?? "").lowercased()
        }
    }

    /// Indexes listed in a 200 answer's `rejected`.
    public static func rejectedIndexes(_ body: [UInt8]) -> Set<Int> {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        return Set((object?["rejected"] as? [[String: Any]] ?? []).compactMap { $0["index"] as? Int })
    }
}
