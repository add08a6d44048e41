import Foundation

/// The exit statuses of the project's executables and the failure that gets each: the one list,
/// so cron, systemd units and scripts read a status the same way whichever command exited.
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Done. `alert check`: nothing firing; `links check`: every check passed.
    case success = 0
    /// The command ran and failed: any error that names no other status (an unknown key, a shard
    /// already moving, a query the server refused). `alert check`: an alert is firing; `links
    /// check`: a check failed; `serve` and `rollup --follow`: a second signal ends them at once.
    case failure = 1
    /// The command could not do its work, and running it again later may: the database unreachable
    /// or lost mid-command (a failover), `alert check`'s trouble (rules file, webhook), `links
    /// check` without its database or hosts. A scheduler retries it; a unit fails so it can page.
    case unavailable = 2
    /// Bad usage (EX_USAGE in sysexits.h): an unknown command or option, a value an option cannot
    /// take, options that exclude each other. Nothing was done.
    case usage = 64
    /// Bad input data (EX_DATAERR in sysexits.h): a file to import that does not read as its
    /// format. Nothing was imported.
    case dataError = 65

    /// The status that reports `error` when it ends the process: the one it names (``ExitCoded``),
    /// else ``failure``.
    public init(reporting error: any Error) {
        self = (error as? any ExitCoded)?.exitCode ?? .failure
    }
}

/// An error that ends a process with a status other than ``ExitCode/failure``: it names its status
/// where it is defined, so every executable exits the same way for it.
public protocol ExitCoded: Error {
    var exitCode: ExitCode { get }
}

/// Ends the process with `code`.
public func exit(_ code: ExitCode) -> Never { Foundation.exit(code.rawValue) }
