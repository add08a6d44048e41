import Foundation

/// What fetching one association file gave, as the OS sees it: no redirect followed, the
/// body cut at a size limit. The HTTPS client fills it in; the rules below judge it.
public struct FetchedFile: Sendable, Equatable {
    public var url: String
    /// nil when no HTTP response arrived (DNS, connection, TLS or timeout).
    public var status: Int?
    /// Where a 3xx pointed (not followed).
    public var redirectLocation: String?
    public var contentType: String?
    public var body: [UInt8]
    /// The body went past the size limit and was cut there.
    public var tooLarge: Bool
    /// Why no response arrived (the client's message).
    public var failure: String?

    public init(
        url: String, status: Int?, redirectLocation: String? = nil, contentType: String? = nil,
        body: [UInt8] = [], tooLarge: Bool = false, failure: String? = nil
    ) {
        self.url = url
        self.status = status
        self.redirectLocation = redirectLocation
        self.contentType = contentType
        self.body = body
        self.tooLarge = tooLarge
        self.failure = failure
    }

    /// Apple's limit for `apple-app-site-association` (uncompressed).
    public static let appleSizeLimit = 128 * 1024
    /// The limit the checker applies to `assetlinks.json` (Android documents none; this keeps a
    /// hostile server from filling memory).
    public static let androidSizeLimit = 512 * 1024

    /// The media type without parameters, lower-cased (`application/json; charset=utf-8` → `application/json`).
    public var mediaType: String? {
        contentType.map {
            String($0.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        }
    }

    /// The verdict on how the file is served, before its content is read; nil when it is
    /// served as the OS requires (HTTPS 200, no redirect, JSON type, within the limit).
    public var servingProblem: (verdict: Verdict, detail: String)? {
        guard let status else { return (.unreachable, failure ?? "no response") }
        if (300..<400).contains(status) {
            return (
                .redirect,
                "HTTP \(status) redirect" + (redirectLocation.map { " to \($0)" } ?? "") + " (not followed by the OS)"
            )
        }
        if status == 404 || status == 410 { return (.missing, "HTTP \(status): no file at \(url)") }
        if status != 200 { return (.httpError, "HTTP \(status) from \(url)") }
        if tooLarge { return (.tooLarge, "the body is over the size limit") }
        if mediaType != "application/json" {
            return (.wrongContentType, "served as \(contentType ?? "no Content-Type"), not application/json")
        }
        return nil
    }
}
