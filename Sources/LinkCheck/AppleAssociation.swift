import PushLedgerSupport

/// A parsed `apple-app-site-association` file: its `applinks.details` in file order.
public struct AppleAssociation: Sendable, Equatable {
    /// One entry of `applinks.details`: the apps it names and the URLs they may open.
    public struct Detail: Sendable, Equatable {
        public var appIDs: [String]
        /// `components` (iOS 13 and later); when present the system ignores `paths`.
        public var components: [Component]?
        /// Legacy `paths` strings, `NOT ` prefix for exclusions.
        public var paths: [String]?
    }

    /// One `components` entry.
    public struct Component: Sendable, Equatable {
        public enum Query: Sendable, Equatable {
            case pattern(WildcardPattern)
            /// Each named query item must be present and its value match.
            case items([(name: String, pattern: WildcardPattern)])

            public static func == (a: Query, b: Query) -> Bool {
                switch (a, b) {
                case (.pattern(let x), .pattern(let y)): x == y
                case (.items(let x), .items(let y)):
                    x.map(\.name) == y.map(\.name) && x.map(\.pattern) == y.map(\.pattern)
                default: false
                }
            }
        }
        public var path: WildcardPattern?
        public var query: Query?
        public var fragment: WildcardPattern?
        public var exclude: Bool

        /// What the component stands for in a report: `/orders/*?ref=*#*`.
        public var summary: String {
            var text = path?.text ?? "*"
            switch query {
            case .pattern(let p): text += "?" + p.text
            case .items(let items): text += "?" + items.map { "\($0.name)=\($0.pattern.text)" }.joined(separator: "&")
            case nil: break
            }
            if let fragment { text += "#" + fragment.text }
            return (exclude ? "exclude " : "") + text
        }

        public func matches(_ link: TappedLink) -> Bool {
            if let path, !path.matches(link.path) { return false }
            switch query {
            case .pattern(let p): if !p.matches(link.query ?? "") { return false }
            case .items(let items):
                let values = link.queryItems
                for item in items {
                    guard let value = values[item.name], item.pattern.matches(value) else { return false }
                }
            case nil: break
            }
            if let fragment, !fragment.matches(link.fragment ?? "") { return false }
            return true
        }
    }

    /// How a file treats one link for one app.
    public enum Coverage: Sendable, Equatable {
        /// The first matching entry lets the app open it; `rule` is that entry.
        case covered(rule: String)
        /// The first matching entry excludes it.
        case excluded(rule: String)
        /// No entry matches: the link opens in the browser.
        case notCovered
    }

    public var details: [Detail]

    /// Parses the file. Throws a problem naming the first thing that is not of the documented shape.
    public init(json bytes: [UInt8]) throws(AssociationProblem) {
        let root: JSONValue
        do { root = try JSONParser.parseValue(bytes) } catch { throw .badJSON(error.description) }
        guard case .object = root else { throw .badShape("the file is \(root.kindName), not an object") }
        guard let applinks = root["applinks"] else { throw .badShape("no \"applinks\" object") }
        guard let details = applinks["details"]?.arrayValue else {
            throw .badShape("\"applinks\" has no \"details\" array")
        }
        self.details = try details.enumerated().map { (index, value) throws(AssociationProblem) in
            try Self.detail(value, at: "applinks.details[\(index)]")
        }
    }

    private static func detail(_ value: JSONValue, at place: String) throws(AssociationProblem) -> Detail {
        guard case .object = value else { throw .badShape("\(place) is \(value.kindName), not an object") }
        var ids: [String] = []
        if let one = value["appID"] {
            guard let id = one.stringValue else { throw .badShape("\(place).appID is not a string") }
            ids.append(id)
        }
        if let many = value["appIDs"] {
            guard let list = many.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw .badShape("\(place).appIDs is not an array of strings")
            }
            ids += list.compactMap(\.stringValue)
        }
        guard !ids.isEmpty else { throw .badShape("\(place) names no app (no \"appID\" or \"appIDs\")") }
        let defaults = value["defaults"]
        let defaultCase = defaults?["caseSensitive"]?.boolValue ?? true
        var components: [Component]?
        if let list = value["components"] {
            guard let items = list.arrayValue else { throw .badShape("\(place).components is not an array") }
            components = try items.enumerated().map { (i, item) throws(AssociationProblem) in
                try component(item, at: "\(place).components[\(i)]", caseSensitive: defaultCase)
            }
        }
        var paths: [String]?
        if let list = value["paths"] {
            guard let items = list.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw .badShape("\(place).paths is not an array of strings")
            }
            paths = items.compactMap(\.stringValue)
        }
        guard components != nil || paths != nil else {
            throw .badShape("\(place) has neither \"components\" nor \"paths\"")
        }
        return Detail(appIDs: ids, components: components, paths: paths)
    }

    private static func component(
        _ value: JSONValue, at place: String, caseSensitive: Bool
    ) throws(AssociationProblem) -> Component {
        guard case .object = value else { throw .badShape("\(place) is \(value.kindName), not an object") }
        let sensitive = value["caseSensitive"]?.boolValue ?? caseSensitive
        func pattern(_ key: String) throws(AssociationProblem) -> WildcardPattern? {
            guard let v = value[key] else { return nil }
            guard let s = v.stringValue else { throw .badShape("\(place)[\"\(key)\"] is \(v.kindName), not a string") }
            return WildcardPattern(s, caseSensitive: sensitive)
        }
        var query: Component.Query?
        switch value["?"] {
        case nil: query = nil
        case .string(let s)?: query = .pattern(WildcardPattern(s, caseSensitive: sensitive))
        case .object(let o)?:
            var items: [(name: String, pattern: WildcardPattern)] = []
            for member in o.members {
                guard let s = member.value.stringValue else {
                    throw .badShape("\(place)[\"?\"].\(member.key) is not a string")
                }
                items.append((member.key, WildcardPattern(s, caseSensitive: sensitive)))
            }
            query = .items(items)
        case let other?: throw .badShape("\(place)[\"?\"] is \(other.kindName), not a string or an object")
        }
        if let e = value["exclude"], e.boolValue == nil { throw .badShape("\(place).exclude is not a boolean") }
        return Component(
            path: try pattern("/"), query: query, fragment: try pattern("#"),
            exclude: value["exclude"]?.boolValue ?? false)
    }

    /// Whether any entry names `appID`.
    public func names(_ appID: String) -> Bool { details.contains { $0.appIDs.contains(appID) } }

    /// How the first entry naming `appID` treats `link`: entries are tried in order and the
    /// first matching one decides (`exclude`/`NOT ` stop matching and keep the link in the browser).
    public func coverage(of link: TappedLink, for appID: String) -> Coverage {
        guard let detail = details.first(where: { $0.appIDs.contains(appID) }) else { return .notCovered }
        if let components = detail.components {
            for component in components where component.matches(link) {
                return component.exclude ? .excluded(rule: component.summary) : .covered(rule: component.summary)
            }
            return .notCovered
        }
        for entry in detail.paths ?? [] {
            let excluded = entry.hasPrefix("NOT ")
            let text = excluded ? String(entry.dropFirst(4)) : entry
            if WildcardPattern(text).matches(link.path) {
                return excluded ? .excluded(rule: entry) : .covered(rule: entry)
            }
        }
        return .notCovered
    }
}

/// Why an association file's content cannot be used.
public enum AssociationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case badJSON(String)
    case badShape(String)

    public var description: String {
        switch self {
        case .badJSON(let m): m
        case .badShape(let m): m
        }
    }
}
