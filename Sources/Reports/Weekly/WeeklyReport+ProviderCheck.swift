import Foundation
import PushLedgerRules
import PushLedgerSupport
import TableRendering

/// The weekly report's "Provider says vs devices say" section (metrics.md "Provider cross-check").
extension WeeklyReport {
    /// True when FCM Aggregated Delivery Data was imported for a day of this week.
    var hasFCMData: Bool { providerCheck?.rows.contains { $0.fcm != nil } ?? false }

    var providerCheckTable: ReportTable {
        guard let check = providerCheck, hasFCMData else {
            return ReportTable(
                title: "Provider says vs devices say", columns: ["day", "fcm_delivered", "confirmed", "gap_pp"],
                rows: [],
                notes: [
                    "no FCM Aggregated Delivery Data for this week: download it from the FCM Data API",
                    "(projects.androidApps.deliveryData.list) and import it with",
                    "pushledger import fcm-delivery-data FILE --app \(app) --fcm-app-id 1:…:android:…",
                ])
        }
        let table = check.table(for: .table)
        return ReportTable(
            title: "Provider says vs devices say", table: table.table,
            notes: ["FCM delivered % against the share of accepted FCM sends a device confirmed, per Los Angeles day"]
                + table.notes.dropFirst())
    }

    /// FCM delivered % and confirmed delivery % per day of the week.
    var providerCheckChart: String {
        let rows = providerCheck?.rows ?? []
        let days = Array(Set(rows.map(\.day))).sorted()
        func value(_ day: CivilDate, _ pick: (ProviderCheckReport.Row) -> Double?) -> Double? {
            rows.first { $0.day == day }.flatMap(pick)
        }
        return SVGChart.lines(
            title: "FCM delivered vs confirmed", xLabels: days.map { String($0.iso.dropFirst(5)) },
            series: [
                ("FCM delivered", days.map { d in value(d) { $0.fcm?.deliveredPct.map { $0 / 100 } } }),
                ("confirmed by devices", days.map { d in value(d) { $0.devices?.confirmedDeliveryRate.value } }),
            ])
    }
}
