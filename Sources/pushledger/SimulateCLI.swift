import Foundation
import Simulator

/// `pushledger simulate`: the simulator declares its own options; this only runs it.
enum SimulateCLI: Command {
    static let spec = SimulateCommand.spec

    static func run(_ context: CommandContext) throws -> Int32 {
        do {
            return try SimulateCommand(parsed: context.command, nowMs: Int64(Date().timeIntervalSince1970 * 1_000)).run()
        } catch {
            throw CommandFailure(message: error.description, exitCode: 64, detail: error.detail)
        }
    }
}
