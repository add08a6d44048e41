import Foundation
import PushLedgerSupport
import PushLedgerCLI
import Store

enum MigrateCommand: Command {
    static let spec = CommandSpec(
        "migrate", summary: "Apply pending SQL migrations (or list them with --status)",
        discussion: "Each file of sql/migrations runs once, in order, in its own transaction. Safe to run concurrently.",
        options: [.flag("status", help: "List applied, pending and changed migrations instead of applying")] + ColumnChoice.options)

    static func run(_ context: CommandContext) throws -> Int32 {
        let migrator = try Migrator(directory: context.migrationsDirectory())
        let connection = try context.connect()
        if context.command.flag("status") {
            try context.printTable(
                format: "table", headers: ["version", "name", "state", "applied_at"],
                rows: try migrator.status(connection).map { s in
                    [.integer(s.version), .text(s.name), .text(s.state.rawValue), s.appliedAt.map { .text(Timestamp.rfc3339($0)) } ?? .null]
                })
            return 0
        }
        let applied = try migrator.migrate(connection) { m in
            context.logger.info("applying migration", ["file": m.fileName])
        }
        context.logger.info("migrations up to date", ["applied_now": applied.count, "total": migrator.migrations.count])
        return 0
    }
}
