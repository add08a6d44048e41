import Foundation
import PushLedgerSupport
import PushLedgerCLI
import Store

enum KeysCommand: Command {
    static let spec = CommandSpec(
        "keys", summary: "Create, list, rotate and revoke ingest API keys",
        discussion: "A key belongs to one app and has one scope: telemetry (ships inside the app) or sends (the push sender). Only a hash is stored. An expired key is answered 401 key_expired. Rotate without downtime: keys rotate ID --overlap 7d prints a new key and keeps the old one valid for the overlap, so both work while senders switch.",
        subcommands: [
            CommandSpec(
                "create", summary: "Create a key; prints the secret alone on stdout (shown once)",
                options: [
                    .value("app", help: "The app id the key writes for", required: true),
                    .value("scope", type: .choice(KeyScope.allCases.map(\.rawValue)), help: "What the key may post", required: true),
                    .value("expires", type: .duration, help: "Valid for this long, e.g. 90d (units s, m, h, d); default: no expiry"),
                ] + rateOptions),
            CommandSpec(
                "list", summary: "List keys (never their secrets)",
                options: [
                    .value("app", help: "Only this app's keys"),
                    .value("format", type: .choice(["table", "json", "csv"]), help: "Output format", default: "table"),
                ] + ColumnChoice.options),
            CommandSpec(
                "rotate", summary: "Create a replacement key (secret on stdout); the old one stays valid for --overlap",
                options: [
                    .value("overlap", type: .duration, help: "How long the old key keeps working, e.g. 7d", required: true),
                    .value("expires", type: .duration, help: "The new key's lifetime, e.g. 90d; default: no expiry"),
                ],
                positionals: [PositionalSpec("id", help: "The key id from keys list")]),
            CommandSpec(
                "update", summary: "Change a key's rate limit (the server applies it at its next key reload)",
                options: rateOptions + [.flag("no-rate", help: "Remove the key's rate limit")],
                positionals: [PositionalSpec("id", help: "The key id from keys list")]),
            CommandSpec("revoke", summary: "Revoke a key by id", positionals: [PositionalSpec("id", help: "The key id from keys list")]),
        ])

    private static let rateOptions: [OptionSpec] = [
        .value("rate", type: .number, help: "Events a second this key may post on average (429 with Retry-After past it); default: no limit"),
        .value("burst", type: .integer, help: "Events the key may post at once above the rate; default: one second's worth"),
    ]

    static func run(_ context: CommandContext) throws -> Int32 {
        let store = KeyStore()
        let command = context.command
        switch command.path.last {
        case "create":
            let scope = try command.choice(KeyScope.self, "scope")
            let app = try command.value(String.self, "app")
            let lifetime = try command.optional(TimeSpan.self, "expires")
            let rateLimit = try rateLimit(command)
            let connection = try context.connect()
            let key = try store.create(app: app, scope: scope, lifetime: lifetime, rateLimit: rateLimit, on: connection)
            context.logger.info("key created", ["id": key.id.uuidString.lowercased(), "app": app, "scope": scope.rawValue])
            context.print(key.secret)
        case "list":
            let format = try command.value(String.self, "format")
            let keys = try store.list(app: command.string("app"), on: context.connect())
            let now = Date()
            func state(_ k: APIKey) -> Cell {
                .text(k.revokedAt != nil ? "revoked" : (k.expiresAt.map { $0 <= now } ?? false) ? "expired" : "active")
            }
            try context.printTable(
                format: format,
                headers: ["id", "app_id", "scope", "prefix", "state", "created_at", "expires_at", "last_used_at", "rate", "burst", "revoked_at"],
                rows: keys.map { k in
                    [.text(k.id.uuidString.lowercased()), .text(k.appID), .text(k.scope.rawValue), .text(k.prefix + "…"), state(k),
                     time(k.createdAt), time(k.expiresAt), time(k.lastUsedAt),
                     k.rateLimit.map { .number($0.eventsPerSecond, digits: 1) } ?? .null, k.rateLimit.map { .integer($0.burst) } ?? .null,
                     time(k.revokedAt)]
                },
                key: ["id", "app_id", "scope", "state", "expires_at", "last_used_at"])
        case "rotate":
            let (text, id) = try keyID(command)
            let overlap = try command.value(TimeSpan.self, "overlap")
            let lifetime = try command.optional(TimeSpan.self, "expires")
            guard let key = try store.rotate(id: id, overlap: overlap, lifetime: lifetime, on: context.connect())
            else { throw CommandFailure(message: "no active, unexpired key with id \(text)") }
            context.logger.info("key rotated", ["old_id": text.lowercased(), "id": key.id.uuidString.lowercased()])
            context.print(key.secret)
        case "update":
            let (text, id) = try keyID(command)
            let limit = try rateLimit(command)
            guard command.flag("no-rate") != (limit != nil) else {
                throw CommandFailure(message: "give --rate (and --burst) or --no-rate", exitCode: 64)
            }
            guard try store.setRateLimit(id: id, limit, on: context.connect()) else {
                throw CommandFailure(message: "no active key with id \(text)")
            }
            context.logger.info("key updated", ["id": text.lowercased(), "rate": limit.map { "\($0.eventsPerSecond)/s burst \($0.burst)" } ?? "none"])
        default:
            let (text, id) = try keyID(command)
            guard try store.revoke(id: id, on: context.connect()) else {
                throw CommandFailure(message: "no active key with id \(text)")
            }
            context.logger.info("key revoked", ["id": text.lowercased()])
        }
        return 0
    }

    /// `--rate` and `--burst`: nil when neither is given; a burst alone is bad usage.
    private static func rateLimit(_ command: ParsedCommand) throws -> KeyRateLimit? {
        let burst = try command.optional(Int.self, "burst")
        guard let rate = try command.optional(Double.self, "rate") else {
            guard burst == nil else { throw CommandFailure(message: "--burst needs --rate", exitCode: 64) }
            return nil
        }
        guard let limit = KeyRateLimit(eventsPerSecond: rate, burst: burst) else {
            throw CommandFailure(message: "--rate and --burst must be positive", exitCode: 64)
        }
        return limit
    }

    private static func time(_ date: Date?) -> Cell { date.map { .text(Timestamp.rfc3339($0)) } ?? .null }

    private static func keyID(_ command: ParsedCommand) throws -> (String, UUID) {
        let text = command.positional("id") ?? ""
        guard let id = UUID(uuidString: text) else {
            throw CommandFailure(message: "'\(text)' is not a key id (a UUID from keys list)", exitCode: 64)
        }
        return (text, id)
    }
}

enum RetentionCommand: Command {
    static let spec = CommandSpec(
        "retention", summary: "Drop whole partitions of events older than --keep",
        discussion: "Sends, snapshots, channel states, receipts and opens are partitioned by month or day (`pushledger partitions`); a partition is dropped only when all of it is older than the cut-off.",
        options: [
            .value("keep", type: .duration, help: "How much history to keep, e.g. 400d", required: true),
            .flag("ensure-ahead", help: "Also create partitions for the next \(Retention.partitionsAhead) (as the writer does on demand)"),
            ShardsCommand.appOption,
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let keep = try context.command.value(TimeSpan.self, "keep")
        let days = keep.seconds / 86_400
        guard days >= 1 else { throw CommandFailure(message: "--keep must be at least one day", exitCode: 64) }
        return try context.eachShard { context in try apply(days: days, context) }
    }

    private static func apply(days: Int, _ context: CommandContext) throws -> Int32 {
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
