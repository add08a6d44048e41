import CommandLineParsing
import PushLedgerSupport
import Store

/// `pushledger keys create`: a new key; its secret alone on stdout.
struct KeysCreateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration("create", summary: "Create a key; prints the secret alone on stdout (shown once)")
    }

    @Option(help: "The app id the key writes for")
    var app: String

    @Option(help: "What the key may post")
    var scope: KeyScope

    @Option(help: "Valid for this long, e.g. 90d (units s, m, h, d); default: no expiry")
    var expires: TimeSpan?

    @OptionGroup var rate: RateOptions

    func run(_ context: CommandContext) throws -> Int32 {
        let rateLimit = try rate.limit()
        let connection = try context.connect()
        let key = try KeyStore().create(app: app, scope: scope, lifetime: expires, rateLimit: rateLimit, on: connection)
        context.logger.info("key created", ["id": key.id.uuidString.lowercased(), "app": app, "scope": scope.rawValue])
        context.print(key.secret)
        return 0
    }
}
