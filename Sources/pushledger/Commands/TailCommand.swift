import CommandLineParsing
import Foundation
import PushLedgerSupport
import Reports

/// `pushledger tail`: what arrives for an app, accepted and rejected, one line per event.
struct TailCommand: Command {
    static let types = [
        "notification_settings", "permission_prompt", "experiment_exposure", "push_token", "notification_received",
        "notification_opened", "send", "event", "request",
    ]

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "tail",
            summary: "Follow the events arriving for an app, accepted and rejected (with the reason), until Ctrl-C",
            discussion: """
                One line per event within a second of its commit, from every ingestor writing to the database. \
                Rejected events come from the failed-event store (`event` or `request` when they named no type). \
                Tokens are shortened.
                """)
    }

    @Option(help: "The app id to follow", environment: "PUSHLEDGER_APP")
    var app: String

    @Option(help: "Only this installation id")
    var installation: String?

    @Option(help: "Only this event type", choices: Self.types)
    var type: String?

    @Option(help: "Start this long ago instead of now, e.g. 10m")
    var since: TimeSpan?

    func run(_ context: CommandContext) throws -> Int32 {
        var connection = try context.connectForReading()
        let start = Date().addingTimeInterval(-Double(since?.seconds ?? 0))
        var follower = TailFollower(
            app: app, installationID: installation, type: type, since: start)
        context.logger.info("following", ["app": follower.app])
        // Ctrl-C ends the process (SIGINT's default action): nothing here needs cleaning up.
        while true {
            do {
                for line in try follower.poll(connection) { context.print(line.text) }
            } catch {
                // A poll can lose a deadlock against an ingestor creating a partition, or the
                // database can restart: say so and poll again (reconnecting when needed).
                context.logger.warning("poll failed; retrying", ["error": "\(error)"])
                if !connection.isHealthy, let fresh = try? context.connectForReading() { connection = fresh }
            }
            usleep(500_000)
        }
    }
}
