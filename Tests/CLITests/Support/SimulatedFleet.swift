import Foundation
import TestSupport
import Testing

/// A migrated database filled the way `make demo` fills one: `pushledger serve` as a child
/// process, a telemetry and a sends key, and `pushledger simulate` posting a small fleet with
/// its `--truth` file. The server is left running for the test to stop.
struct SimulatedFleet {
    let environment: [String: String]
    let serve: ServeProcess
    let truthFile: URL

    /// `arguments`: more options of `simulate` (the fleet's shape).
    init(
        prefix: String, installs: Int = 300, warmupDays: Int = 0, days: Int = 8, seed: Int = 7, arguments: [String] = []
    ) throws {
        let database = try TestDatabase.empty(prefix: prefix)
        environment = ["DATABASE_URL": database, "PUSHLEDGER_APP": "com.example.shop"]
        let migrate = try CommandRunner.run(["migrate", "--log-level", "warning"], environment: environment)
        try #require(migrate.status == 0, "\(migrate.stderr)")
        var keys: [String] = []
        for scope in ["telemetry", "sends"] {
            let key = try CommandRunner.run(
                ["keys", "create", "--app", "com.example.shop", "--scope", scope, "--log-level", "warning"],
                environment: environment)
            try #require(key.status == 0, "\(key.stderr)")
            keys.append(key.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        serve = try ServeProcess(databaseURL: database)
        truthFile = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-truth-\(UUID()).json")
        let simulate = try CommandRunner.run(
            [
                "simulate", "--url", "http://127.0.0.1:\(serve.port)", "--telemetry-key", keys[0], "--sends-key",
                keys[1],
                "--installs", "\(installs)", "--warmup-days", "\(warmupDays)", "--days", "\(days)", "--seed", "\(seed)",
                "--no-progress", "--truth", truthFile.path,
            ] + arguments,
            environment: environment)
        try #require(simulate.status == 0, "\(simulate.stderr)")
    }

    /// The simulator's expected figures.
    func truth() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: truthFile)) as? [String: Any])
    }

    /// `--from`, `--to` and `--as-of` of the simulated window.
    func window() throws -> [String] {
        let truth = try truth()
        return [
            "--from", try #require(truth["from"] as? String), "--to", try #require(truth["to"] as? String),
            "--as-of", try #require(truth["as_of"] as? String),
        ]
    }

    func removeTruth() { try? FileManager.default.removeItem(at: truthFile) }
}
