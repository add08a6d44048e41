import CommandLineParsing
import PushLedgerSupport
import Store

/// `pushledger keys rotate ID`: a replacement key; the old one keeps working for the overlap.
struct KeysRotateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "rotate", summary: "Create a replacement key (secret on stdout); the old one stays valid for --overlap")
    }

    @Option(help: "How long the old key keeps working, e.g. 7d")
    var overlap: TimeSpan

    @Option(help: "The new key's lifetime, e.g. 90d; default: no expiry")
    var expires: TimeSpan?

    @Argument(help: "The key id from keys list")
    var id: String

    func run(_ context: CommandContext) throws -> Int32 {
        let keyID = try KeysCommand.keyID(id)
        guard let key = try KeyStore().rotate(id: keyID, overlap: overlap, lifetime: expires, on: context.connect())
        else { throw CommandFailure(message: "no active, unexpired key with id \(id)") }
        context.logger.info("key rotated", ["old_id": id.lowercased(), "id": key.id.uuidString.lowercased()])
        context.print(key.secret)
        return 0
    }
}
