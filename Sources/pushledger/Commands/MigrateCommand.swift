import CommandLineParsing
import Foundation
import OutcomeEngine
import PushLedgerSupport
import Store
import TableRendering

struct MigrateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "migrate", summary: "Apply pending SQL migrations and changed definitions (or list them with --status)",
            discussion: """
                Each file of sql/migrations runs once, in order, in its own transaction; then every definition \
                file of sql/definitions.list whose text changed is applied again, in list order, in one transaction. \
                A database migrated by the previous release is upgraded in place (docs/operations/upgrading.md). \
                Safe to run concurrently.
                """)
    }

    @Flag(help: "List migrations and definitions (applied, pending, changed) instead of applying")
    var status: Bool

    @OptionGroup var columns: ColumnOptions

    func run(_ context: CommandContext) throws -> Int32 {
        do {
            return try migrate(context)
        } catch let failure as Migrator.Failure {
            throw CommandFailure(message: failure.description, detail: failure.debugDescription)
        }
    }

    private func migrate(_ context: CommandContext) throws -> Int32 {
        if context.directoryURL != nil, !status {
            let fleet = try FleetMigration(sqlDirectory: context.sqlDirectory())
            let outcomes = try ShardsCommand.refusals {
                try fleet.migrate(directory: context.connectDirectory()) { database, file in
                    context.logger.info("applying", ["database": database, "file": file])
                }
            }
            context.logger.info("directory and shards up to date", ["databases": outcomes.count])
            return 0
        }
        let migrator = try Migrator(directory: context.sqlDirectory())
        let connection = try context.connect()
        if status {
            try context.printTable(
                format: .table, headers: ["kind", "name", "state", "applied_at"],
                rows: try migrator.status(connection).map { s in
                    [
                        .text(s.kind.rawValue), .text(s.name), .text(s.state.rawValue),
                        s.appliedAt.map { .text(Timestamp.rfc3339($0)) } ?? .null,
                    ]
                }, columns: try columns.choice())
            return 0
        }
        let outcome = try migrator.migrate(connection) { file in
            context.logger.info("applying", ["file": file])
        }
        context.logger.info(
            "schema up to date",
            [
                "migrations_applied": outcome.migrations.count, "definitions_applied": outcome.definitions.count,
                "migrations": migrator.migrations.count, "definitions": migrator.definitions.count,
            ])
        return 0
    }
}
