import CommandLineParsing
import Foundation
import PushLedgerSupport

// The executable only parses and dispatches: every command is a type under Commands/.
let environment = ProcessInfo.processInfo.environment
switch CommandLineParser.parse(
    Array(CommandLine.arguments.dropFirst()), root: PushLedgerCommand.self, environment: environment)
{
case .failure(let usage):
    FileHandle.standardError.write(Data((usage.description + "\n").utf8))
    exit(.usage)
case .success(.help(let text)), .success(.version(let text)):
    FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    exit(.success)
case .success(.run(let chain)):
    guard let root = chain.first as? PushLedgerCommand, let command = chain.last as? any Command else {
        FileHandle.standardError.write(Data("pushledger: name a command; see pushledger --help\n".utf8))
        exit(.usage)
    }
    let logger = Logger(component: "pushledger", minimumLevel: root.global.logLevel.level)
    var context = CommandContext(global: root.global, environment: environment, logger: logger)
    context.app = (command as? any AppRouted)?.routingApp
    context.onDirectory = chain.contains { $0 is KeysCommand }
    do {
        exit(try command.run(context))
    } catch {
        let failure = CommandFailure(reporting: error)
        if let detail = failure.detail { logger.debug("command failed", ["detail": detail]) }
        FileHandle.standardError.write(Data("pushledger: \(failure.message)\n".utf8))
        exit(failure.exitCode)
    }
}
