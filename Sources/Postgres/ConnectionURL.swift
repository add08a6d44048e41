/// A libpq connection URI (`postgres://` or `postgresql://`) taken apart as libpq reads it,
/// host lists included: `postgres://user:secret@db1:5432,db2:5432/app?target_session_attrs=read-write`
/// names two hosts, which libpq tries in order (the form a Patroni cluster is reached by).
/// Foundation's URL parsing refuses such an authority, hence this reading.
public struct ConnectionURL: Sendable, Equatable {
    /// One host of the list and its port (nil: libpq's default).
    public struct Endpoint: Sendable, Equatable {
        public var host: String
        public var port: String?

        public init(host: String, port: String? = nil) {
            self.host = host
            self.port = port
        }
    }

    public var user: String?
    public var password: String?
    /// The hosts in order; empty when the URL names none (libpq's default, or a `host` parameter).
    public var endpoints: [Endpoint] = []
    public var database: String?
    /// The query parameters (`?name=value&…`), decoded, in order.
    public var parameters: [(name: String, value: String)] = []

    /// Reads `url`; nil when it is not a postgres URI or a part of it is not well formed.
    public init?(_ url: String) {
        guard let schemeEnd = url.range(of: "://"),
            ["postgres", "postgresql"].contains(url[..<schemeEnd.lowerBound].lowercased())
        else { return nil }
        var rest = url[schemeEnd.upperBound...]
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var authority = rest
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        }
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let colon = userinfo.firstIndex(of: ":")
            guard let name = Self.decoded(userinfo[..<(colon ?? userinfo.endIndex)]) else { return nil }
            user = name.isEmpty ? nil : name
            if let colon {
                guard let secret = Self.decoded(userinfo[userinfo.index(after: colon)...]) else { return nil }
                password = secret
            }
        }
        if !authority.isEmpty {
            for item in authority.split(separator: ",", omittingEmptySubsequences: false) {
                guard let endpoint = Self.endpoint(item) else { return nil }
                endpoints.append(endpoint)
            }
        }
        if !path.isEmpty {
            guard let name = Self.decoded(path) else { return nil }
            database = name
        }
        for pair in query.split(separator: "&") {
            let equals = pair.firstIndex(of: "=") ?? pair.endIndex
            let valueStart = equals == pair.endIndex ? equals : pair.index(after: equals)
            guard let name = Self.decoded(pair[..<equals]), let value = Self.decoded(pair[valueStart...]) else {
                return nil
            }
            parameters.append((name, value))
        }
    }

    public static func == (a: ConnectionURL, b: ConnectionURL) -> Bool {
        (a.user, a.password, a.endpoints, a.database) == (b.user, b.password, b.endpoints, b.database)
            && a.parameters.map(\.name) == b.parameters.map(\.name)
            && a.parameters.map(\.value) == b.parameters.map(\.value)
    }

    /// `url` with its password replaced by `***`, for listings and logs; a string that is no
    /// postgres URI is returned as is when it holds no `@`, else withheld entirely.
    public static func redacted(_ url: String) -> String {
        guard let parsed = ConnectionURL(url) else { return url.contains("@") ? "(unreadable URL withheld)" : url }
        guard parsed.password != nil, let schemeEnd = url.range(of: "://"),
            let at = url[schemeEnd.upperBound...].prefix(while: { $0 != "/" && $0 != "?" }).lastIndex(of: "@"),
            let colon = url[schemeEnd.upperBound..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }

    /// `host`, `[v6 address]`, `host:port` or `[v6]:port`, percent-decoded.
    private static func endpoint(_ text: Substring) -> Endpoint? {
        var host = text[...], port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard let name = decoded(host) else { return nil }
        guard let port else { return Endpoint(host: name) }
        guard port.isEmpty || port.allSatisfy(\.isASCII) && port.allSatisfy(\.isNumber) else { return nil }
        return Endpoint(host: name, port: port.isEmpty ? nil : String(port))
    }

    /// Percent-decoding as libpq does it; nil for a malformed escape or bytes that are not UTF-8.
    private static func decoded(_ text: Substring) -> String? {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
