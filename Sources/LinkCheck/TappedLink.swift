import Foundation

/// A link a notification opened, split the way association files match it: host, and the
/// percent-encoded path, query and fragment.
public struct TappedLink: Sendable, Hashable {
    public let host: String
    public let path: String
    public let query: String?
    public let fragment: String?

    public init(host: String, path: String, query: String? = nil, fragment: String? = nil) {
        self.host = host
        self.path = path.isEmpty ? "/" : path
        self.query = query
        self.fragment = fragment
    }

    /// Parses an `https`/`http` URL; nil for anything else (custom schemes are not universal
    /// links or App Links and no association file applies to them).
    public init?(_ link: String) {
        guard let c = URLComponents(string: link), let scheme = c.scheme?.lowercased(),
            scheme == "https" || scheme == "http",
            let host = c.percentEncodedHost?.lowercased(), !host.isEmpty
        else { return nil }
        self.init(
            host: host, path: c.percentEncodedPath, query: c.percentEncodedQuery, fragment: c.percentEncodedFragment)
    }

    /// The query items by name (first one wins), decoded, for a dictionary `?` condition.
    public var queryItems: [String: String] {
        guard let query else { return [:] }
        var items: [String: String] = [:]
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pieces[0]).removingPercentEncoding ?? String(pieces[0])
            let value = pieces.count > 1 ? (String(pieces[1]).removingPercentEncoding ?? String(pieces[1])) : ""
            if items[name] == nil { items[name] = value }
        }
        return items
    }

    /// The path group reports show: the first segment, with `/*` when the link goes deeper
    /// (`/orders/81/items` → `/orders/*`, `/chat` → `/chat`), so one row stands for all order ids.
    public var pathGroup: String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let first = segments.first else { return "/" }
        return segments.count > 1 ? "/\(first)/*" : "/\(first)"
    }
}
