import Foundation
import PushLedgerSupport
import PushLedgerCLI
import Store

enum KeysCommand: Command {
    static let spec = CommandSpec(
        "keys", summary: "Create, list and revoke ingest API keys",
        discussion: "A key belongs to one app and has one scope: telemetry (ships inside the app) or sends (the push sender). Only a hash is stored.",
        subcommands: [
            CommandSpec(
                "create", summary: "Create a key; prints the secret alone on stdout (shown once)",
                options: [
                    .value("app", help: "The app id the key writes for", required: true),
                    .value("scope", type: .choice(KeyScope.allCases.map(\.rawValue)), help: "What the key may post", required: true),
                ]),
            CommandSpec(
                "list", summary: "List keys (never their secrets)",
                options: [
                    .value("app", help: "Only this app's keys"),
                    .value("format", type: .choice(["table", "json", "csv"]), help: "Output format", default: "table"),
                ] + ColumnChoice.options),
            CommandSpec("revoke", summary: "Revoke a key by id", positionals: [PositionalSpec("id", help: "The key id from keys list")]),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let store = KeyStore()
        let command = context.command
        switch command.path.last {
        case "create":
            let scope = try command.choice(KeyScope.self, "scope")
            let app = try command.value(String.self, "app")
            let connection = try context.connect()
            let key = try store.create(app: app, scope: scope, on: connection)
            context.logger.info("key created", ["id": key.id.uuidString.lowercased(), "app": app, "scope": scope.rawValue])
            context.print(key.secret)
        case "list":
            let keys = try store.list(app: command.string("app"), on: context.connect())
            try context.printTable(
                format: command.value(String.self, "format"),
                headers: ["id", "app_id", "scope", "prefix", "created_at", "revoked_at"],
                rows: keys.map { k in
                    [.text(k.id.uuidString.lowercased()), .text(k.appID), .text(k.scope.rawValue), .text(k.prefix + "…"),
                     .text(Timestamp.rfc3339(k.createdAt)), k.revokedAt.map { .text(Timestamp.rfc3339($0)) } ?? .null]
                },
                key: ["id", "app_id", "scope", "prefix", "revoked_at"])
        default:
            let text = command.positional("id") ?? ""
            guard let id = UUID(uuidString: text) else {
                throw CommandFailure(message: "'\(text)' is not a key id (a UUID from keys list)", exitCode: 64)
            }
            guard try store.revoke(id: id, on: context.connect()) else {
                throw CommandFailure(message: "no active key with id \(text)")
            }
            context.logger.info("key revoked", ["id": text.lowercased()])
        }
        return 0
    }
}

enum RetentionCommand: Command {
    static let spec = CommandSpec(
        "retention", summary: "Drop whole partitions of events older than --keep",
        discussion: "Sends, snapshots, channel states, receipts and opens are partitioned by month or day (`pushledger partitions`); a partition is dropped only when all of it is older than the cut-off.",
        options: [
            .value("keep", type: .duration, help: "How much history to keep, e.g. 400d", required: true),
            .flag("ensure-ahead", help: "Also create partitions for the next \(Retention.partitionsAhead) (as the writer does on demand)"),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let keep = try context.command.value(TimeSpan.self, "keep")
        let days = keep.seconds / 86_400
        guard days >= 1 else { throw CommandFailure(message: "--keep must be at least one day", exitCode: 64) }
        let connection = try context.connect()
        if context.command.flag("ensure-ahead") {
            let created = try Retention.ensurePartitions(from: Date(), to: Date() + Retention.partitionsAhead, on: connection)
            for name in created { context.logger.info("partition created", ["partition": name]) }
        }
        let removed = try Retention(days: days).apply(on: connection)
        for r in removed {
            context.print("dropped \(r.kind.rawValue) \(r.object)" + (r.rowCount.map { " (\($0) rows)" } ?? ""))
        }
        if removed.isEmpty { context.print("nothing older than \(days) days") }
        return 0
    }
}
