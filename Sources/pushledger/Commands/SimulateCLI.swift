import CommandLineParsing
import Foundation
import Simulator

/// `pushledger simulate`: the simulator declares its own options (``SimulateArguments``); this only runs it.
struct SimulateCLI: Command {
    static var configuration: CommandConfiguration { SimulateArguments.configuration }

    @OptionGroup var arguments: SimulateArguments

    func run(_ context: CommandContext) throws -> Int32 {
        do {
            return try SimulateCommand(arguments, nowMs: Int64(Date().timeIntervalSince1970 * 1_000)).run()
        } catch {
            throw CommandFailure(message: error.description, exitCode: .usage, detail: error.detail)
        }
    }
}
