import Foundation
import PushLedgerCLI
import PushLedgerContract
import PushLedgerSupport
import Store

/// `pushledger tokens invalid`: the invalid-token feed from the command line, the same rows
/// as `GET /v1/tokens/invalid` (every page of one walk).
enum TokensCommand: Command {
    static let spec = CommandSpec(
        "tokens", summary: "Push tokens as PushLedger knows them",
        subcommands: [
            CommandSpec(
                "invalid", summary: "Tokens a sender should stop pushing to (as GET /v1/tokens/invalid)",
                discussion: "A token is listed while a stored send result marked it invalid (APNs 410, 400 BadDeviceToken, FCM UNREGISTERED) and no registration of it came after that result. invalidated_at is the earliest such result.",
                options: [
                    .value("app", help: "The app id", required: true),
                    .value("since", type: .timestamp, help: "Only tokens invalidated at or after this time"),
                    .value("format", type: .choice(["table", "json", "ndjson", "csv"]), help: "Output format", default: "table"),
                ]),
        ])

    static func run(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        let since = command.timestamp("since").map(RFC3339.format)
        let query = try InvalidTokenFeed.Query.parse(since: since, limit: String(InvalidTokenFeed.limitRange.upperBound), cursor: nil)
            .mapError { CommandFailure(message: $0.description, exitCode: 64) }.get()
        let tokens = try InvalidTokenFeed().all(appID: command.string("app")!, query: query, on: context.connectForReading())
        switch command.string("format")! {
        case "json":
            var w = JSONWriter(pretty: true)
            w.beginObject()
            InvalidTokenFeed.Token.writeMember(tokens, to: &w)
            w.endObject()
            context.print(String(decoding: w.bytes, as: UTF8.self))
        case "ndjson":
            for token in tokens {
                var w = JSONWriter()
                token.write(to: &w)
                context.print(String(decoding: w.bytes, as: UTF8.self))
            }
        case let format:
            // The terminal table shows a token's ends (FCM tokens run to 4 KiB); CSV keeps it whole.
            let shorten = format == "table"
            try context.printTable(
                format: format,
                headers: ["provider", "token", "invalidated_at", "status", "reason", "unregistered_at", "installation_id"],
                rows: tokens.map { t in
                    [.text(t.provider), .text(shorten && t.token.count > 20 ? "\(t.token.prefix(8))…\(t.token.suffix(8))" : t.token),
                     .text(Timestamp.rfc3339(t.invalidatedAt)), .integer(t.status), t.reason.map(Cell.text) ?? .null,
                     t.unregisteredAt.map { .text(Timestamp.rfc3339($0)) } ?? .null,
                     t.installationID.map { .text(shorten ? String($0.uuidString.lowercased().prefix(8)) : $0.uuidString.lowercased()) } ?? .null]
                })
        }
        return 0
    }
}
