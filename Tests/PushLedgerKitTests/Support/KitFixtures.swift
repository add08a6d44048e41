import Foundation
import Postgres
import PushLedgerKit
import PushLedgerSupport
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Storage directories, configurations and a captured log for the SDK's tests.
enum KitFixtures {
    static let app = "com.example.shop"
    static let key = "plk_test_secret_key_0123456789"

    /// A new empty storage directory under the temporary directory.
    static func directory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Fast retries (tests must not sleep through production backoffs) and a captured log.
    static func configuration(
        endpoint: String = "http://127.0.0.1:9", key: String = key, directory: URL = directory(), log: LogCapture? = nil
    ) -> PushLedger.Configuration {
        var configuration = PushLedger.Configuration(
            appID: app, endpoint: URL(string: endpoint)!, telemetryKey: key, storageDirectory: directory)
        configuration.appVersion = "2.1.0"
        configuration.osVersion = "17.5"
        configuration.retry = RetryPolicy(maxAttempts: 3, baseDelay: 0.02, maxDelay: 0.1, maxRetryAfter: 0.2)
        configuration.requestTimeout = 5
        if let log { configuration.logger = Logger(component: "PushLedgerKit", minimumLevel: .debug, sink: log.append) }
        return configuration
    }

    /// The `pushledger-kit-probe` executable built next to the tests.
    static var probe: URL {
        CommandRunner.executable.deletingLastPathComponent().appendingPathComponent("pushledger-kit-probe")
    }

    /// One of every event type, valid for the contract.
    static func everyEventType(notification: UUID = UUID()) -> [PushLedgerEvent] {
        [
            .notificationSettings(
                .init(
                    authorizationStatus: .authorized, alertSetting: .enabled, timeSensitiveSetting: .notSupported,
                    alertStyle: .banner)),
            .permissionPrompt(placement: "after_first_order", prompt: .system, result: .granted),
            .experimentExposure(experiment: "push_prompt_timing", variant: "after_first_order"),
            .pushToken(provider: .apns, token: String(repeating: "ab", count: 32), environment: .production),
            .notificationReceived(notificationID: notification, channel: "orders", displayed: true),
            .notificationOpened(
                notificationID: notification, action: "default", link: "https://shop.example.com/orders/42",
                landed: .target),
        ]
    }
}

/// Log lines the SDK wrote, for checks that rejections are reported and secrets never are.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    var lines: [String] { lock.withLock { storage } }
    var append: @Sendable (String) -> Void { { [self] line in lock.withLock { storage.append(line) } } }
}

/// A migrated database, keys made with `pushledger keys create`, and `pushledger serve` on it.
final class KitServer: @unchecked Sendable {
    let databaseURL: String
    let telemetryKey: String
    let sendsKey: String
    private(set) var serve: ServeProcess

    init() throws {
        databaseURL = try TestDatabase.fresh(prefix: "kit")
        telemetryKey = try Self.pushledger(
            ["keys", "create", "--app", KitFixtures.app, "--scope", "telemetry"], databaseURL)
        sendsKey = try Self.pushledger(["keys", "create", "--app", KitFixtures.app, "--scope", "sends"], databaseURL)
        serve = try ServeProcess(databaseURL: databaseURL)
    }

    var baseURL: String { serve.baseURL }

    /// SIGKILL and a new server on the same port.
    func killAndRestart() throws {
        serve.send(SIGKILL)
        serve.waitForExit()
        serve = try ServeProcess(databaseURL: databaseURL, port: serve.port)
    }

    func connect() throws -> Connection { try Connection.connect(url: databaseURL) }

    /// Stored telemetry event ids with how many event-table rows each has (1 when stored once).
    func storedEventIDs() throws -> [String: Int] {
        let rows = try connect().query(
            """
            select event_id::text from (\(unsafeRaw: StoredEvents.unionAll(StoredEvents.telemetryTables))) stored \
            where app_id = \(KitFixtures.app)
            """
        )
        var counts: [String: Int] = [:]
        for row in rows { counts[try row.decode(0, as: String.self), default: 0] += 1 }
        return counts
    }

    @discardableResult
    static func pushledger(_ arguments: [String], _ url: String) throws -> String {
        let output = try CommandRunner.run(arguments + ["--log-level", "warning"], environment: ["DATABASE_URL": url])
        guard output.status == 0 else {
            throw RawHTTPError(
                description: "pushledger \(arguments.first ?? "") exited \(output.status): \(output.stderr)")
        }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
