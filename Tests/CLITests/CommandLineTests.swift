import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct CommandLineTests {
    @Test func helpAndVersionExitZero() throws {
        let help = try CommandRunner.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("SUBCOMMANDS:"))
        #expect(help.stdout.contains("migrate"))
        let version = try CommandRunner.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("pushledger "))
    }

    @Test(arguments: [["--bogus"], [], ["migrate", "--nope"], ["no-such-command"]])
    func badUsageExits64WithAReason(arguments: [String]) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains("error: "))
        #expect(result.stderr.contains("Usage: pushledger"))
        #expect(result.stdout.isEmpty)
    }

    /// One app may hold every writer but no more than there are; bad usage before any database.
    /// `migrate` reads the `sql/` above the binary, never one in the working directory (a
    /// folder someone else controls must not become the schema).
    @Test func migrateFindsSQLNextToTheBinaryNotInTheWorkingDirectory() throws {
        let url = try TestDatabase.empty(prefix: "sqldir")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqldir-\(UUID())")
        let decoy = folder.appendingPathComponent("sql")
        try FileManager.default.createDirectory(
            at: decoy.appendingPathComponent("migrations"), withIntermediateDirectories: true)
        try "decoy.sql\n".write(to: decoy.appendingPathComponent("definitions.list"), atomically: true, encoding: .utf8)
        try "create table decoy (x int);\n".write(
            to: decoy.appendingPathComponent("decoy.sql"), atomically: true, encoding: .utf8)
        try "create table decoy_migration (x int);\n".write(
            to: decoy.appendingPathComponent("migrations/0001_decoy.sql"), atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try CommandRunner.run(
            ["migrate"], environment: ["DATABASE_URL": url], without: ["PUSHLEDGER_SQL_DIR"], directory: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let connection = try Connection.connect(url: url)
        #expect(
            try connection.query("select to_regclass('decoy') is null and to_regclass('decoy_migration') is null")[0]
                .decode(0, as: Bool.self))
        #expect(try connection.query("select to_regclass('failed_events') is not null")[0].decode(0, as: Bool.self))
    }

    @Test func serveRefusesMoreWritersForOneAppThanItHas() throws {
        let result = try CommandRunner.run(
            ["serve", "--writers", "3", "--app-writers", "4"],
            environment: ["DATABASE_URL": "postgres://x@127.0.0.1:1/x"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--app-writers must be between 1 and 3, got 4"), "\(result.stderr)")
    }

    @Test(arguments: [["nosuch", "--help"], ["nosuch"], ["report", "nosuch", "-h"]])
    func anUnknownCommandIsAnErrorEvenWithHelp(arguments: [String]) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("error: unknown command 'nosuch' (commands: "), "\(result.stderr)")
        let commands =
            arguments[0] == "report"
            ? ["silent-loss", "prompt-timing", "rejections", "weekly"] : ["migrate", "keys", "report", "serve"]
        for name in commands { #expect(first.contains(name), "\(name) in \(first)") }
    }

    @Test func everyCommandHasHelp() throws {
        let root = try CommandRunner.run(["--help"])
        let section = root.stdout.components(separatedBy: "SUBCOMMANDS:").last ?? ""
        let names = section.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            // A name is indented two spaces; a summary wrapped to 120 columns continues further in.
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = trimmed.split(separator: " ").first else {
                return nil
            }
            return String(word)
        }
        #expect(!names.isEmpty)
        for name in names {
            let help = try CommandRunner.run([name, "--help"])
            #expect(help.status == 0, "\(name) --help")
            #expect(help.stdout.contains("Usage: pushledger \(name)"))
        }
    }

    /// Exit 2, as for a database lost mid-command: a scheduler tries again later.
    @Test func unreachableDatabaseIsOneLineAndExitTwo() throws {
        let result = try CommandRunner.run(["migrate"], environment: ["DATABASE_URL": "postgres://x@127.0.0.1:1/x"])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == """
                pushledger: cannot connect to PostgreSQL at 127.0.0.1:1: connection to server at \"127.0.0.1\", \
                port 1 failed: Connection refused Is the server running on that host and accepting TCP/IP \
                connections?\n
                """
        )
    }

    @Test func migrateAppliesThenReportsStatus() throws {
        let url = try TestDatabase.empty(prefix: "cli")
        let first = try CommandRunner.run(["migrate"], environment: ["DATABASE_URL": url])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("msg=applying file=0001_baseline.sql"))
        #expect(first.stderr.contains("msg=applying file=engine/outcome.sql"))
        let again = try CommandRunner.run(["migrate"], environment: ["DATABASE_URL": url])
        #expect(again.status == 0)
        #expect(!again.stderr.contains("msg=applying"))
        let status = try CommandRunner.run(["migrate", "--status", "--database-url", url])
        #expect(status.status == 0)
        #expect(status.stdout.contains("│ migration  │ 0001_baseline.sql "))
        #expect(status.stdout.contains("│ definition │ engine/outcome.sql "))
        #expect(status.stdout.contains("applied"))
        #expect(!status.stdout.contains("pending"))
    }

    /// A database whose record of an applied migration does not match the file (a pre-release
    /// build, or an edited migration) is refused with one line, nothing applied.
    @Test func migrateRefusesADatabaseWithAnotherBaselineInOneLine() throws {
        let url = try TestDatabase.empty(prefix: "cli")
        let connection = try Connection.connect(url: url)
        try connection.executeScript(
            """
            create table schema_migrations (version integer primary key, name text not null, checksum text not null,
                                            applied_at timestamptz not null default now());
            insert into schema_migrations (version, name, checksum) values (1, 'core_tables', 'x');
            """)
        let result = try CommandRunner.run(["migrate"], environment: ["DATABASE_URL": url])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == """
                pushledger: migration 0001_baseline.sql was changed after it was applied; add a new migration \
                instead\n
                """
        )
        #expect(try connection.query("select count(*) from schema_migrations")[0].decode(0, as: Int.self) == 1)
    }
}
