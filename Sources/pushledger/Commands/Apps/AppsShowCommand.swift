import CommandLineParsing
import OutcomeEngine
import Store
import TableRendering

/// `pushledger apps show`: an app's identities, one row each.
struct AppsShowCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration("show", summary: "Show an app's identities")
    }

    @Option(help: "The app id", environment: "PUSHLEDGER_APP")
    var app: String

    @Option(help: "Output format", default: .table, choices: [.table, .json])
    var format: TableFormat

    func run(_ context: CommandContext) throws -> Int32 {
        let ids = try LinkStore().identities(app: app, on: context.connect())
        let rows: [[Cell]] =
            ids.iosAppIDs.map { [.text("ios"), .text($0), .null] }
            + ids.androidApps.flatMap { a in a.fingerprints.map { [.text("android"), .text(a.packageName), .text($0)] }
            }
        try context.printTable(format: format, headers: ["platform", "app_id_or_package", "cert_sha256"], rows: rows)
        return 0
    }
}
