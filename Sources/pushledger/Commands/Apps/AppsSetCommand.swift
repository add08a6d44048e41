import CommandLineParsing
import LinkCheck
import Store

/// `pushledger apps set`: replaces the iOS app IDs, or one Android package's fingerprints.
struct AppsSetCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            "set", summary: "Set the iOS app IDs, or one Android package's fingerprints (what is named is replaced)")
    }

    @Option(help: "The app id", environment: "PUSHLEDGER_APP")
    var app: String

    @Option(
        name: "ios-app-id", help: "An iOS app ID, TEAMID.bundle.id (repeat for several; replaces the app's list)",
        placeholder: "id")
    var iosAppIDs: [String]

    @Option(help: "An Android package name (its fingerprints are replaced)", placeholder: "pkg")
    var androidPackage: String?

    @Option(
        name: "android-cert-sha256", help: "A signing-certificate SHA-256 of that package (AA:BB:… or 64 hex digits)",
        placeholder: "fp")
    var fingerprints: [String]

    func run(_ context: CommandContext) throws -> Int32 {
        let ios = iosAppIDs
        guard !ios.isEmpty || androidPackage != nil else {
            throw CommandFailure(message: "name --ios-app-id or --android-package", exitCode: .usage)
        }
        if let problem = ios.lazy.compactMap(AppIdentities.problem(iosAppID:)).first {
            throw CommandFailure(message: problem, exitCode: .usage)
        }
        var android: AppIdentities.AndroidApp?
        if let package = androidPackage {
            if let problem = AppIdentities.problem(androidPackage: package) {
                throw CommandFailure(message: problem, exitCode: .usage)
            }
            guard !fingerprints.isEmpty else {
                throw CommandFailure(
                    message: "--android-package needs at least one --android-cert-sha256", exitCode: .usage)
            }
            var canonical: [String] = []
            for p in fingerprints {
                guard let c = CertificateFingerprint.normalized(p) else {
                    throw CommandFailure(
                        message: "'\(p)' is not a SHA-256 fingerprint (32 bytes of hex, colons optional)",
                        exitCode: .usage)
                }
                canonical.append(c)
            }
            android = .init(packageName: package, fingerprints: canonical)
        } else if !fingerprints.isEmpty {
            throw CommandFailure(message: "--android-cert-sha256 needs --android-package", exitCode: .usage)
        }
        try LinkStore().set(app: app, iosAppIDs: ios.isEmpty ? nil : ios, android: android, on: context.connect())
        context.logger.info(
            "app identities set",
            ["app": app, "ios_app_ids": String(ios.count), "android_package": androidPackage ?? ""])
        return 0
    }
}
