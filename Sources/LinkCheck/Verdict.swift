/// The verdict of one check. Raw values are what JSON output and the database hold.
public enum Verdict: String, Sendable, CaseIterable {
    // How a file is served and what it holds.
    case ok
    case unreachable
    case missing
    case httpError = "http_error"
    case redirect
    case wrongContentType = "wrong_content_type"
    case tooLarge = "too_large"
    case badJSON = "bad_json"
    case badShape = "bad_shape"
    // Whether the file names the app.
    case named
    case notNamed = "not_named"
    case fingerprintMalformed = "fingerprint_malformed"
    case fingerprintMismatch = "fingerprint_mismatch"
    // Whether the Apple file lets the app open a tapped path.
    case covered
    case excluded
    case notCovered = "not_covered"
    // Apple's CDN copy against the origin.
    case cdnSame = "cdn_same"
    case cdnDiffers = "cdn_differs"

    /// Whether the check passes (everything else fails the command).
    public var passes: Bool { [.ok, .named, .covered, .cdnSame].contains(self) }
}

/// The outcome of one check of one domain.
public struct CheckResult: Sendable, Equatable {
    /// `apple file`, `apple app`, `apple path`, `apple cdn`, `android file`, `android app`.
    public var check: String
    /// What the check was about: the app ID, the package, the path group; empty for files.
    public var subject: String
    public var verdict: Verdict
    /// A line for a person: what was found.
    public var detail: String

    public init(check: String, subject: String = "", verdict: Verdict, detail: String) {
        self.check = check
        self.subject = subject
        self.verdict = verdict
        self.detail = detail
    }
}
