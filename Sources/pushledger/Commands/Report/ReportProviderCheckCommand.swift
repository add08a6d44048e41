import CommandLineParsing
import Foundation
import OutcomeEngine
import PushLedgerRules
import PushLedgerSupport
import Reports

/// `pushledger report provider-check`: FCM's Aggregated Delivery Data beside what devices confirmed.
struct ReportProviderCheckCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "provider-check",
            summary: "FCM's Aggregated Delivery Data beside what devices confirmed, per Los Angeles day",
            discussion: """
                FCM reports per day in America/Los_Angeles; --from/--to are those days (dates in Los Angeles time), \
                --week the ISO week's Monday to Sunday. gap_pp = FCM delivered % minus confirmed delivery %. Import \
                FCM's data first: pushledger import fcm-delivery-data.
                """)
    }

    /// One row per day, or per day and campaign.
    enum Rows: String, CaseIterable, OptionValue {
        case day, campaign
    }

    @Option(help: "The app id to report on", environment: "PUSHLEDGER_APP")
    var app: String

    @Option(help: "First Los Angeles day, e.g. 2026-11-23 (default: 7 days before --to)")
    var from: LocalTime?

    @Option(help: "Day after the last, exclusive (default: today in Los Angeles)")
    var to: LocalTime?

    @Option(help: "An ISO week such as 2026-W48 instead of --from/--to")
    var week: ISOWeek?

    @Option(help: "One row per day, or per day and campaign", default: .day)
    var by: Rows

    @Option(help: "Evaluate as of this time; nothing later counts (default: now)")
    var asOf: Date?

    @OptionGroup var confirmation: ConfirmationOption

    @OptionGroup var output: ReportTableFormat

    @OptionGroup var columns: ColumnOptions

    func run(_ context: CommandContext) throws -> Int32 {
        let columns = try self.columns.choice()
        let zone = ProviderCheckReport.timeZone
        let from: CivilDate
        let to: CivilDate
        if let week {
            guard self.from == nil, self.to == nil else {
                throw CommandFailure(report: ReportError.invalidQuery("give either --week or --from/--to, not both"))
            }
            from = CivilDate(week.start())
            to = CivilDate(daysSinceEpoch: from.daysSinceEpoch + 7)
        } else {
            to = self.to.map { CivilDate($0.date(in: zone), in: zone) } ?? CivilDate(Date(), in: zone)
            from =
                self.from.map { CivilDate($0.date(in: zone), in: zone) }
                ?? CivilDate(daysSinceEpoch: to.daysSinceEpoch - 7)
        }
        let asOf = self.asOf ?? Date()
        let connection = try context.connectForReading()
        return try ReportCommand.report(context) {
            try ProviderCheckReport.run(
                connection: connection, app: app, from: from, to: to, byCampaign: by == .campaign, asOf: asOf,
                confirmationWindow: confirmation.window.timeInterval
            ).rendered(output.format, columns: columns)
        }
    }
}
