import CommandLineParsing
import Store

/// `pushledger keys revoke ID`.
struct KeysRevokeCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration("revoke", summary: "Revoke a key by id")
    }

    @Argument(help: "The key id from keys list")
    var id: String

    func run(_ context: CommandContext) throws -> Int32 {
        let keyID = try KeysCommand.keyID(id)
        guard try KeyStore().revoke(id: keyID, on: context.connect()) else {
            throw CommandFailure(message: "no active key with id \(id)")
        }
        context.logger.info("key revoked", ["id": id.lowercased()])
        return 0
    }
}
