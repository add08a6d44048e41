import Foundation
import PushLedgerKit
import PushLedgerSupport

/// Storage directories, configurations and a captured log for the SDK's tests.
public enum KitFixtures {
    public static let app = "com.example.shop"
    public static let key = "plk_test_secret_key_0123456789"

    /// A new empty storage directory under the temporary directory.
    public static func directory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Fast retries (tests must not sleep through production backoffs) and a captured log.
    public static func configuration(
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

    /// One of every event type, valid for the contract.
    public static func everyEventType(notification: UUID = UUID()) -> [PushLedgerEvent] {
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
public final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    public init() {}
    public var lines: [String] { lock.withLock { storage } }
    public var append: @Sendable (String) -> Void { { [self] line in lock.withLock { storage.append(line) } } }
}
