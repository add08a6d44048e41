import CommandLineParsing
import Foundation
import Store

/// `pushledger import fcm-delivery-data FILE|-`: FCM's Data API pages through ``FCMDeliveryData``;
/// every entry is checked, then the days they cover are replaced.
struct ImportFCMDeliveryDataCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "fcm-delivery-data",
            summary: "Import FCM Aggregated Delivery Data (Data API androidApps.deliveryData.list pages)",
            discussion: """
                FILE holds one answer page, an array of pages, or one page per line, as downloaded from \
                fcmdata.googleapis.com. Entries are stored as given; importing a day again replaces that day. Input \
                with any bad entry is refused whole.
                """)
    }

    @Option(help: "The PushLedger app id the data belongs to")
    var app: String

    @Option(help: "Firebase app id, e.g. 1:123456789:android:abc123 (every entry must carry it)")
    var fcmAppID: String

    @Argument(help: "JSON file, or - for standard input")
    var file: String

    func run(_ context: CommandContext) throws -> Int32 {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw CommandFailure(message: "cannot open \(file)")
            }
            data = contents
        }
        let entries: [FCMDeliveryData.Entry]
        do throws(FCMDeliveryData.ImportError) {
            entries = try FCMDeliveryData.entries(in: Array(data), fcmAppID: fcmAppID)
        } catch {
            throw CommandFailure(message: "\(file): \(error.description); nothing imported", exitCode: .dataError)
        }
        let days = try FCMDeliveryData().store(entries, app: app, fcmAppID: fcmAppID, on: context.connect())
        let span = days.first.map { first in " (\(first.iso) to \(days.last!.iso), America/Los_Angeles)" } ?? ""
        context.print("imported \(entries.count) FCM delivery entries for \(days.count) days\(span)")
        return 0
    }
}
