import Foundation
import Postgres
import PushLedgerContract
import PushLedgerSupport

/// FCM Aggregated Delivery Data (`projects.androidApps.deliveryData.list` answers) stored as
/// given, per day: importing a day again replaces it (telemetry-v1.md, Additions).
public struct FCMDeliveryData: Sendable {
    public init() {}

    /// One `androidDeliveryData` entry: its day (America/Los_Angeles), label and JSON.
    public struct Entry: Sendable, Equatable {
        public var day: CivilDate
        /// "" for the entry of unlabeled messages.
        public var analyticsLabel: String
        public var json: String
    }

    public struct ImportError: Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The entries of one or more pages: a page object, an array of pages, or one page per
    /// line. Every entry must belong to `fcmAppID`; any problem refuses the whole input.
    public static func entries(in bytes: [UInt8], fcmAppID: String) throws(ImportError) -> [Entry] {
        var pages: [JSONValue] = []
        if let whole = try? JSONParser.parseValue(bytes) {
            pages = whole.arrayValue ?? [whole]
        } else {
            for (number, line) in bytes.split(separator: 0x0A).enumerated()
            where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
                do { pages.append(try JSONParser.parseValue(Array(line))) } catch {
                    throw ImportError("page \(number + 1) is not JSON: \(error)")
                }
            }
        }
        var entries: [Entry] = []
        for (p, page) in pages.enumerated() {
            guard let object = page.objectValue else { throw ImportError("page \(p + 1) is not a JSON object") }
            guard
                let list = object["androidDeliveryData"]?.arrayValue
                    ?? (object["androidDeliveryData"] == nil ? [] : nil)
            else {
                throw ImportError("page \(p + 1): androidDeliveryData is not an array")
            }
            for (e, value) in list.enumerated() {
                let place = "page \(p + 1) entry \(e + 1)"
                guard let entry = value.objectValue else { throw ImportError("\(place) is not an object") }
                guard let appID = entry["appId"]?.stringValue, appID == fcmAppID else {
                    throw ImportError(
                        "\(place) has appId \(entry["appId"]?.stringValue ?? "(none)"), not --fcm-app-id \(fcmAppID)")
                }
                guard let date = entry["date"]?.objectValue,
                    let year = date["year"]?.numberValue?.int64Value,
                    let month = date["month"]?.numberValue?.int64Value,
                    let day = date["day"]?.numberValue?.int64Value,
                    let civil = CivilDate(year: Int(year), month: Int(month), day: Int(day))
                else { throw ImportError("\(place) has no valid date {year, month, day}") }
                if let data = entry["data"], data.objectValue == nil {
                    throw ImportError("\(place): data is not an object")
                }
                var w = JSONWriter()
                w.value(value)
                entries.append(
                    Entry(
                        day: civil, analyticsLabel: entry["analyticsLabel"]?.stringValue ?? "",
                        json: String(decoding: w.bytes, as: UTF8.self)))
            }
        }
        return entries
    }

    /// Replaces every day the entries cover, in one transaction; returns the days replaced.
    public func store(
        _ entries: [Entry], app: String, fcmAppID: String, on connection: Connection
    ) throws -> [CivilDate] {
        let days = Set(entries.map(\.day)).sorted()
        try connection.transaction { connection in
            for day in days {
                try connection.execute(
                    """
                    delete from fcm_delivery_data where app_id = \(app) and fcm_app_id = \(fcmAppID) and day = \
                    \(day.iso)::date
                    """
                )
            }
            for entry in entries {
                try connection.execute(
                    """
                    insert into fcm_delivery_data (app_id, fcm_app_id, day, analytics_label, entry)
                    values (\(app), \(fcmAppID), \(entry.day.iso)::date, \(entry.analyticsLabel), \(entry.json)::jsonb)
                    on conflict (app_id, fcm_app_id, day, analytics_label) do update set entry = excluded.entry, \
                    imported_at = now()
                    """)
            }
        }
        return days
    }
}
