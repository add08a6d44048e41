import CommandLineParsing
import Foundation
import OutcomeEngine
import PushLedgerSupport
import Store

/// `pushledger apps move APP --to NAME` (or `--rollback`).
struct AppsMoveCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "move", summary: "Move an app to another shard while it keeps posting (needs --directory-url)",
            discussion: """
                Copies the app's rows by logical replication filtered to the app, pauses its writes briefly (its \
                requests get 503 with Retry-After, which the SDKs and senders honour), waits for the copy to catch up, \
                compares every table's row count, flips the shard map and removes the app's rows from the old shard. A \
                move cut short is recorded in the directory: run the same command again to resume it, or --rollback to \
                undo it before the flip. Needs wal_level=logical on the old shard and a superuser login in both \
                shards' URLs: PostgreSQL 15 lets only a superuser create a subscription, and the rows are deleted \
                with triggers off; the move checks both first and changes nothing without (docs/operations/scaling.md).
                """)
    }

    @Argument(help: "The app id")
    var app: String

    @Option(help: "The shard to move the app to", placeholder: "name")
    var to: String?

    @Flag(help: "Undo a move that has not flipped yet: drop the copy, the app stays where it is")
    var rollback: Bool

    @Option(
        name: "catch-up-limit",
        help: "How long the paused app may wait for the copy to catch up before the move gives up and unpauses it",
        default: TimeSpan(seconds: 30))
    var catchUpLimit: TimeSpan

    @Option(help: "Output format", default: .text)
    var format: MoveFormat

    enum MoveFormat: String, CaseIterable, OptionValue { case text, json }

    func validate() throws(OptionError) {
        if rollback {
            guard to == nil else { throw OptionError("--rollback takes no --to") }
        } else {
            guard to != nil else { throw OptionError("name the shard: --to NAME (or --rollback)") }
        }
    }

    func run(_ context: CommandContext) throws -> Int32 {
        guard let directory = context.directoryURL else {
            throw OptionError("apps move needs --directory-url (or PUSHLEDGER_DIRECTORY_URL)")
        }
        var move = AppMove(app: app, directoryURL: directory)
        move.catchUpLimit = catchUpLimit.timeInterval
        let logger = context.logger, app = app
        move.progress = { line in logger.info(line, ["app": app]) }
        do {
            if rollback {
                try ShardsCommand.refusals { try move.rollback() }
                return 0
            }
            guard let target = to else { preconditionFailure("validate() requires --to without --rollback") }
            let report = try ShardsCommand.refusals { try move.run(to: target) }
            ShardsCommand.sync(context, try context.connectDirectory())
            if format == .json {
                let json: JSONValue = [
                    "app": .string(report.app), "from": .string(report.from), "to": .string(report.to),
                    "rows": .int(report.rows),
                    "deleted_from_source": .int(report.deletedFromSource), "copy_seconds": .double(report.copySeconds),
                    "pause_seconds": .double(report.pauseSeconds), "total_seconds": .double(report.totalSeconds),
                ]
                context.print(json.jsonText(pretty: true))
            } else {
                context.print(
                    String(
                        format: "moved %@ from %@ to %@: %d rows; copy %.2f s, writes paused %.3f s, %.2f s in all",
                        report.app, report.from, report.to, report.rows, report.copySeconds, report.pauseSeconds,
                        report.totalSeconds))
            }
            return 0
        } catch let failure as AppMove.Failure {
            throw CommandFailure(message: failure.description)
        }
    }
}
