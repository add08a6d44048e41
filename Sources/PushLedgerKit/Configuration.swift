import Foundation
import PushLedgerSupport

extension PushLedger {
    /// Everything a ledger needs; only the first four have no default.
    public struct Configuration: Sendable {
        /// The app's id as PushLedger knows it (the telemetry key's app).
        public var appID: String
        /// The ingest server's base URL; `/v1/telemetry` is appended.
        public var endpoint: URL
        /// A `telemetry`-scoped key. It ships inside the app and can only write telemetry.
        public var telemetryKey: String
        /// The journal's directory: on iOS the App Group container the app and its
        /// extensions share, so they journal into one place and share one installation id.
        public var storageDirectory: URL
        /// The contract's platform word: `ios` for Apple devices (also when the core runs on Linux).
        public var platform: Platform = .ios
        /// Recorded with every event; on Apple platforms read from the main bundle unless set.
        public var appVersion: String? = Self.bundleVersion
        /// Recorded with every event; read from the system unless set.
        public var osVersion: String? = Self.systemVersion
        /// Android only (`Build.VERSION.SDK_INT`); nil on Apple platforms.
        public var sdkInt: Int?
        /// Journal cap: past it the oldest events are dropped (and counted). At least 10,000 events / 10 MB by default.
        public var maxJournalEvents = 10_000
        public var maxJournalBytes = 10 << 20
        /// Batches stay within these (the contract's defaults unless the server was configured lower).
        public var limits = IngestLimits()
        /// Events per request; at most `limits.maxEventsPerRequest`.
        public var maxBatchEvents = 500
        /// Retries inside one `flush()` on 429, 503, 5xx and network errors (exponential backoff
        /// with jitter, `Retry-After` honoured up to `maxRetryAfter`).
        public var retry = PushLedgerRetryPolicy(maxAttempts: 4, baseDelay: 0.5, maxDelay: 30, maxRetryAfter: 60)
        /// Seconds a flush waits for another process's flush to finish before giving up (`busy`).
        public var lockWait: TimeInterval = 60
        /// Seconds one HTTP request may take.
        public var requestTimeout: TimeInterval = 30
        /// Where the SDK's log lines go. Lines never hold the key or a full token.
        public var logger = PushLedgerLogger(component: "PushLedgerKit", minimumLevel: .warning)
        /// How requests leave the device (URLSession unless replaced, e.g. in tests).
        public var transport: any PushLedgerTransport = URLSessionTransport()

        public init(appID: String, endpoint: URL, telemetryKey: String, storageDirectory: URL) {
            self.appID = appID
            self.endpoint = endpoint
            self.telemetryKey = telemetryKey
            self.storageDirectory = storageDirectory
        }

        /// `CFBundleShortVersionString` of the main bundle (nil outside an app bundle).
        public static var bundleVersion: String? {
            Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String
        }

        /// `major.minor[.patch]` of the running OS.
        public static var systemVersion: String? {
            let v = ProcessInfo.processInfo.operatingSystemVersion
            return v.patchVersion == 0
                ? "\(v.majorVersion).\(v.minorVersion)" : "\(v.majorVersion).\(v.minorVersion).\(v.patchVersion)"
        }

        /// The batch's envelope fields other than `sent_at` (stamped per attempt).
        var context: JournalContext {
            JournalContext(
                appVersion: appVersion.flatMap(Self.bounded), osVersion: osVersion.flatMap(Self.bounded), sdkInt: sdkInt
            )
        }

        /// Versions the contract would refuse (empty, too long) are left out rather than failing every batch.
        private static func bounded(_ text: String) -> String? {
            (1...FieldLimits.version).contains(text.utf8.count) ? text : nil
        }
    }
}

/// The logger the configuration takes: structured lines (`ts=… level=… msg="…" key=value`)
/// handed to the app's `sink` (e.g. `os_log`), never holding the key or a full token.
/// Named apart so it does not clash with `os.Logger` in app code.
public typealias PushLedgerLogger = Logger

/// When a flush retries: exponential backoff with jitter, `Retry-After` honoured up to a cap.
public typealias PushLedgerRetryPolicy = RetryPolicy
