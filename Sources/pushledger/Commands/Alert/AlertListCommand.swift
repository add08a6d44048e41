import CommandLineParsing
import Foundation
import Reports

/// `pushledger alert list`: the firing/resolved transitions recorded by `alert check`.
struct AlertListCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration("list", summary: "Show firing/resolved transitions")
    }

    @Option(help: "Only transitions at or after this time")
    var since: Date?

    @Option(help: "Output format", default: .text)
    var format: AlertOutputFormat

    @OptionGroup var shards: ShardChoice

    func run(_ context: CommandContext) throws -> Int32 {
        try context.eachShard(runOne)
    }

    private func runOne(_ context: CommandContext) throws -> Int32 {
        do {
            let history = try AlertStateStore.history(since: since, connection: context.connectForReading())
            context.print(AlertOutput.render(history: history, format: format))
            return 0
        } catch let error as AlertError {
            throw CommandFailure(message: error.description, exitCode: error.exitCode, detail: error.debugDescription)
        }
    }
}
