/// What an app's association files must name: its iOS app IDs and its Android packages with
/// their signing-certificate fingerprints (several of each: debug and release builds).
public struct AppIdentities: Sendable, Equatable {
    public struct AndroidApp: Sendable, Equatable {
        public var packageName: String
        /// Canonical `AA:BB:…` SHA-256 fingerprints.
        public var fingerprints: [String]
        public init(packageName: String, fingerprints: [String]) {
            self.packageName = packageName
            self.fingerprints = fingerprints
        }
    }

    /// `TEAMID.bundle.id`, in the order they were given (the first is the one paths are checked for).
    public var iosAppIDs: [String]
    public var androidApps: [AndroidApp]

    public init(iosAppIDs: [String] = [], androidApps: [AndroidApp] = []) {
        self.iosAppIDs = iosAppIDs
        self.androidApps = androidApps
    }

    public var isEmpty: Bool { iosAppIDs.isEmpty && androidApps.isEmpty }

    /// nil when `id` is an iOS app ID (`ABCDE12345.com.example.shop`: a 10-character team ID, a
    /// dot, a bundle ID), else why not.
    public static func problem(iosAppID id: String) -> String? {
        let parts = id.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 10,
            parts[0].allSatisfy({ $0.isASCII && ($0.isNumber || $0.isUppercase) })
        else {
            return "'\(id)' is not an iOS app ID (TEAMID.bundle.id with a 10-character team ID)"
        }
        guard !parts[1].isEmpty,
            parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
        else {
            return "'\(id)' has an invalid bundle ID after the team ID"
        }
        return nil
    }

    /// nil when `name` is an Android package name (`com.example.shop`), else why not.
    public static func problem(androidPackage name: String) -> String? {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid =
            segments.count >= 2
            && segments.allSatisfy { s in
                guard let first = s.first, first.isASCII, first.isLetter else { return false }
                return s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            }
        return valid ? nil : "'\(name)' is not an Android package name (segments like com.example.shop)"
    }
}
