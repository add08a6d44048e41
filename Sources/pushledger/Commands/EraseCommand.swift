import CommandLineParsing
import Foundation
import OutcomeEngine
import Reports
import Store
import TableRendering

/// `pushledger erase`: removes every stored trace of one installation or push token.
struct EraseCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "erase", summary: "Erase every stored trace of one installation (or push token), on request",
            discussion: """
                Removes the installation's telemetry of every type, its token registrations and token state, the sends \
                resolved to it or to its tokens, the receipts and opens of its notifications and the app's failed \
                events stored with its id or one of its tokens (--search-raw-text: also those whose raw text contains \
                them, for rows stored before failed events named their installation); then refreshes the rollups of \
                the affected days. Only a SHA-256 of the id is kept, in the erasures table. Safe while ingest runs \
                (writers wait for the erasure's transaction); idempotent. --dry-run lists what would go and changes \
                nothing.
                """)
    }

    @Option(help: "The app id")
    var app: String

    @Option(help: "The installation id (a UUID) to erase", placeholder: "id")
    var installation: String?

    @Option(help: "A push token to erase instead (its registrations, sends and their receipts)", placeholder: "token")
    var token: String?

    @Flag(help: "Also remove failed events whose raw text contains the id or token (16+ characters)")
    var searchRawText: Bool

    @Flag(help: "List what would be removed; change nothing")
    var dryRun: Bool

    @Option(help: "Output format", default: .table, choices: [.table, .json, .csv])
    var format: TableFormat

    func run(_ context: CommandContext) throws -> Int32 {
        let subject: Erasure.Subject
        switch (installation, token) {
        case (let id?, nil):
            guard let uuid = UUID(uuidString: id) else {
                throw CommandFailure(message: "--installation wants a UUID, got '\(id)'", exitCode: .usage)
            }
            subject = .installation(uuid)
        case (nil, let token?) where !token.isEmpty: subject = .token(token)
        default: throw CommandFailure(message: "give one of --installation ID or --token TOKEN", exitCode: .usage)
        }
        let connection = try context.connect()
        if searchRawText, case .token(let token) = subject, token.count < Erasure.minimumSearchLength {
            throw CommandFailure(
                message: "--search-raw-text needs a token of at least \(Erasure.minimumSearchLength) characters",
                exitCode: .usage)
        }
        let removed = try Erasure().erase(
            app: app, subject, dryRun: dryRun, searchRawText: searchRawText, on: connection)
        try context.printTable(
            format: format, headers: ["table", dryRun ? "would_remove" : "removed"],
            rows: removed.map { [.text($0.table), .integer($0.rows)] })
        guard !dryRun else { return 0 }
        // Never the id or token in a log line: the erasure is recorded by its hash.
        context.logger.info("erased", ["app": app, "rows": "\(removed.reduce(0) { $0 + $1.rows })"])
        do throws(ReportError) {
            let summary = try ReportRollups.refresh(connection: connection)
            context.logger.info(
                "rollups refreshed",
                ["days": "\(summary.days.count)", "prompt_cohort_days": "\(summary.promptCohortDays)"])
        } catch {
            throw CommandFailure(report: error)
        }
        return 0
    }
}
