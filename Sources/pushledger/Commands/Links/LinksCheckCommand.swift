import CommandLineParsing
import LinkAudit
import LinkCheck
import LinkFetch
import Postgres
import TableRendering

/// `pushledger links check`: runs a ``LinkAudit``; exit 0 all pass, 1 a check fails, 2 could not run.
struct LinksCheckCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "check",
            summary: "Check each domain's association files; exit 0 all pass, 1 a check fails, 2 could not run",
            discussion: """
                Without --domain: every host in the links of the app's opens of the last 30 days. Tapped paths are \
                matched against the Apple file. Results are stored for the weekly report.
                """)
    }

    /// Internal, for tests only: a fixture host that plays Apple's CDN.
    static let cdnOverride = "PUSHLEDGER_LINKS_APPLE_CDN_BASE"

    @Option(help: "The app id", environment: "PUSHLEDGER_APP")
    var app: String

    @Option(name: "domain", help: "A domain to check (repeatable; default: hosts of tapped links)", placeholder: "host")
    var domains: [String]

    @Flag(help: "Also compare with the copy Apple's CDN serves to devices")
    var appleCDN: Bool

    @Option(help: "Also trust the CAs in this PEM file (test and staging servers)", placeholder: "file")
    var caFile: String?

    @Option(
        help:
            """
            curl's HOST:PORT:ADDR:PORT: fetch https://HOST from ADDR:PORT, HOST still used for SNI and the certificate
            """,
        placeholder: "spec")
    var connectTo: [String]

    @Option(help: "Output format", default: .table, choices: [.table, .json])
    var format: TableFormat

    func run(_ context: CommandContext) throws -> Int32 {
        let couldNotRun = { (message: String, detail: String?) in
            CommandFailure(message: message, exitCode: .unavailable, detail: detail)
        }
        let connection: Connection
        do { connection = try context.connect() } catch let f as CommandFailure {
            throw couldNotRun(f.message, f.detail)
        }
        let audit = LinkAudit(
            app: app, domains: domains, appleCDN: appleCDN,
            fetcher: HTTPSFetcher(extraCAFile: caFile, connectTo: connectTo),
            appleCDNBase: context.environment[Self.cdnOverride] ?? DomainCheck.appleCDNBase)
        let report: LinkAuditReport
        do {
            report = try audit.run(on: connection) { domain, index, count in
                context.logger.info("checking domain", ["domain": domain, "progress": "\(index)/\(count)"])
            }
        } catch {
            throw couldNotRun(error.message, error.detail)
        }
        context.print(format == .json ? report.json() : report.table())
        return report.passed ? 0 : 1
    }
}
