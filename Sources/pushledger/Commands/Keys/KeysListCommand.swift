import CommandLineParsing
import Foundation
import OutcomeEngine
import PushLedgerSupport
import Store
import TableRendering

/// `pushledger keys list`: every key, never a secret.
struct KeysListCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration("list", summary: "List keys (never their secrets)")
    }

    @Option(help: "Only this app's keys")
    var app: String?

    @Option(help: "Output format", default: .table, choices: [.table, .json, .csv])
    var format: TableFormat

    @OptionGroup var columns: ColumnOptions

    func run(_ context: CommandContext) throws -> Int32 {
        let keys = try KeyStore().list(app: app, on: context.connect())
        let now = Date()
        func state(_ k: APIKey) -> Cell {
            .text(k.revokedAt != nil ? "revoked" : (k.expiresAt.map { $0 <= now } ?? false) ? "expired" : "active")
        }
        func time(_ date: Date?) -> Cell { date.map { .text(Timestamp.rfc3339($0)) } ?? .null }
        try context.printTable(
            format: format,
            headers: [
                "id", "app_id", "scope", "prefix", "state", "created_at", "expires_at", "last_used_at", "rate", "burst",
                "revoked_at",
            ],
            rows: keys.map { k in
                [
                    .text(k.id.uuidString.lowercased()), .text(k.appID), .text(k.scope.rawValue),
                    .text(k.prefix + "…"), state(k),
                    time(k.createdAt), time(k.expiresAt), time(k.lastUsedAt),
                    k.rateLimit.map { .number($0.eventsPerSecond, digits: 1) } ?? .null,
                    k.rateLimit.map { .integer($0.burst) } ?? .null,
                    time(k.revokedAt),
                ]
            },
            key: ["id", "app_id", "scope", "state", "expires_at", "last_used_at"], columns: try columns.choice())
        return 0
    }
}
