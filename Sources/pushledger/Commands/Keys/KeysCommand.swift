import CommandLineParsing
import Foundation
import Store

/// `pushledger keys`: ingest API keys.
struct KeysCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "keys", summary: "Create, list, rotate and revoke ingest API keys",
            discussion: """
                A key belongs to one app and has one scope: telemetry (ships inside the app) or sends (the push \
                sender). Only a hash is stored. An expired key is answered 401 key_expired. Rotate without downtime: \
                keys rotate ID --overlap 7d prints a new key and keeps the old one valid for the overlap, so both work \
                while senders switch.
                """,
            subcommands: [
                KeysCreateCommand.self, KeysListCommand.self, KeysRotateCommand.self, KeysUpdateCommand.self,
                KeysRevokeCommand.self,
            ])
    }

    /// The `<id>` argument as a key id; not a UUID is bad usage.
    static func keyID(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw CommandFailure(message: "'\(text)' is not a key id (a UUID from keys list)", exitCode: .usage)
        }
        return id
    }
}

/// `--rate` and `--burst`, for `keys create` and `keys update`.
struct RateOptions: ParsableArguments {
    @Option(help: "Events a second this key may post on average (429 with Retry-After past it); default: no limit")
    var rate: Double?

    @Option(help: "Events the key may post at once above the rate; default: one second's worth")
    var burst: Int?

    /// nil when neither is given; a burst alone is bad usage.
    func limit() throws -> KeyRateLimit? {
        guard let rate else {
            guard burst == nil else { throw CommandFailure(message: "--burst needs --rate", exitCode: .usage) }
            return nil
        }
        guard let limit = KeyRateLimit(eventsPerSecond: rate, burst: burst) else {
            throw CommandFailure(message: "--rate and --burst must be positive", exitCode: .usage)
        }
        return limit
    }
}
