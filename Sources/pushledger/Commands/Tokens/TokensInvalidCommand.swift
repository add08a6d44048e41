import CommandLineParsing
import Foundation
import OutcomeEngine
import PushLedgerContract
import PushLedgerSupport
import Store
import TableRendering

/// `pushledger tokens invalid`: the invalid-token feed from the command line, the same rows
/// as `GET /v1/tokens/invalid` (every page of one walk).
struct TokensInvalidCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "invalid", summary: "Tokens a sender should stop pushing to (as GET /v1/tokens/invalid)",
            discussion: """
                A token is listed while a stored send result marked it invalid (APNs 410, 400 BadDeviceToken, FCM \
                UNREGISTERED) and no registration of it came after that result. invalidated_at is the earliest such \
                result.
                """)
    }

    /// The forms of the feed: the tables' and one JSON object per line.
    enum Format: String, CaseIterable, OptionValue {
        case table, json, ndjson, csv
    }

    @Option(help: "The app id")
    var app: String

    @Option(help: "Only tokens invalidated at or after this time")
    var since: Date?

    @Option(help: "Output format", default: .table)
    var format: Format

    func run(_ context: CommandContext) throws -> Int32 {
        let since = self.since.map(RFC3339.format)
        let query = try InvalidTokenFeed.Query.parse(
            since: since, limit: String(InvalidTokenFeed.limitRange.upperBound), cursor: nil
        )
        .mapError { CommandFailure(message: $0.description, exitCode: .usage) }.get()
        let tokens = try InvalidTokenFeed().all(appID: app, query: query, on: context.connectForReading())
        switch format {
        case .json:
            var w = JSONWriter(pretty: true)
            w.beginObject()
            InvalidTokenFeed.Token.writeMember(tokens, to: &w)
            w.endObject()
            context.print(String(decoding: w.bytes, as: UTF8.self))
        case .ndjson:
            for token in tokens {
                var w = JSONWriter()
                token.write(to: &w)
                context.print(String(decoding: w.bytes, as: UTF8.self))
            }
        case .table, .csv:
            // The terminal table shows a token's ends (FCM tokens run to 4 KiB); CSV keeps it whole.
            let shorten = format == .table
            try context.printTable(
                format: shorten ? .table : .csv,
                headers: [
                    "provider", "token", "invalidated_at", "status", "reason", "unregistered_at", "installation_id",
                ],
                rows: tokens.map { t in
                    [
                        .text(t.provider),
                        .text(shorten && t.token.count > 20 ? "\(t.token.prefix(8))…\(t.token.suffix(8))" : t.token),
                        .text(Timestamp.rfc3339(t.invalidatedAt)), .integer(t.status), t.reason.map(Cell.text) ?? .null,
                        t.unregisteredAt.map { .text(Timestamp.rfc3339($0)) } ?? .null,
                        t.installationID.map {
                            .text(shorten ? String($0.uuidString.lowercased().prefix(8)) : $0.uuidString.lowercased())
                        } ?? .null,
                    ]
                })
        }
        return 0
    }
}
