import Foundation

/// Contract-valid request bodies, built fresh per test (new event ids each time).
public enum Fixtures {
    public static let app = "com.example.shop"
    public static let otherApp = "com.example.other"

    public static func time(_ date: Date = Date()) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)
        )
        .replacingOccurrences(of: "+0000", with: "Z")
    }

    /// An `experiment_exposure` event (the smallest valid type).
    public static func exposure(id: UUID = UUID(), at: Date = Date()) -> [String: Any] {
        [
            "event_id": id.uuidString.lowercased(), "type": "experiment_exposure", "at": time(at),
            "experiment": "push_prompt_timing", "variant": "first_screen",
        ]
    }

    public static func telemetry(app: String = app, events: [[String: Any]]) -> [UInt8] {
        json([
            "app_id": app, "installation_id": UUID().uuidString.lowercased(), "platform": "android",
            "app_version": "5.2.0", "sent_at": time(), "events": events,
        ])
    }

    /// A telemetry body with `count` fresh exposure events.
    public static func telemetry(count: Int) -> [UInt8] { telemetry(events: (0..<count).map { _ in exposure() }) }

    public static func send(id: UUID = UUID(), app: String = app) -> [String: Any] {
        [
            "event_id": id.uuidString.lowercased(), "notification_id": UUID().uuidString.lowercased(), "app_id": app,
            "provider": "fcm", "token": "fcm-token-\(id.uuidString.prefix(8))", "channel": "orders", "sent_at": time(),
            "status": 200,
        ]
    }

    public static func sends(_ sends: [[String: Any]]) -> [UInt8] { json(["sends": sends]) }

    public static func ndjson(_ sends: [[String: Any]]) -> [UInt8] {
        sends.map { json($0) + [10] }.reduce([], +)
    }

    public static func json(_ object: Any) -> [UInt8] {
        Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}
