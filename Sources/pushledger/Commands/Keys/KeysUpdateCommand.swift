import CommandLineParsing
import Store

/// `pushledger keys update ID`: a key's rate limit, set or removed.
struct KeysUpdateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "update", summary: "Change a key's rate limit (the server applies it at its next key reload)")
    }

    @OptionGroup var rate: RateOptions

    @Flag(help: "Remove the key's rate limit")
    var noRate: Bool

    @Argument(help: "The key id from keys list")
    var id: String

    func run(_ context: CommandContext) throws -> Int32 {
        let keyID = try KeysCommand.keyID(id)
        let limit = try rate.limit()
        guard noRate != (limit != nil) else {
            throw CommandFailure(message: "give --rate (and --burst) or --no-rate", exitCode: .usage)
        }
        guard try KeyStore().setRateLimit(id: keyID, limit, on: context.connect()) else {
            throw CommandFailure(message: "no active key with id \(id)")
        }
        let rate = limit.map { "\($0.eventsPerSecond)/s burst \($0.burst)" } ?? "none"
        context.logger.info("key updated", ["id": id.lowercased(), "rate": rate])
        return 0
    }
}
