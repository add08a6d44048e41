import Foundation

/// Event ids of a posted body and what an answer rejected, for the suites that check what was
/// acknowledged against what is stored.
public enum PostedEventIDs {
    /// The `event_id`s of the objects in `list` ("events", "sends") of a JSON body, lowercased.
    public static func json(_ body: [UInt8], list: String) -> [String] {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        return (object?[list] as? [[String: Any]] ?? []).map { ($0["event_id"] as? String ?? "").lowercased() }
    }

    /// The `event_id` of each line of an NDJSON body, lowercased.
    public static func ndjson(_ body: [UInt8]) -> [String] {
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
