import PushLedgerSupport

/// A parsed `assetlinks.json`: the statements that delegate link handling to an Android app.
public struct AssetLinks: Sendable, Equatable {
    /// The relation App Links verification looks for.
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"

    public struct Statement: Sendable, Equatable {
        public var packageName: String
        /// As written in the file (verification compares them exactly).
        public var fingerprints: [String]
    }

    /// Statements with the `handle_all_urls` relation and an `android_app` target, in file order.
    public var statements: [Statement]

    public init(json bytes: [UInt8]) throws(AssociationProblem) {
        let root: JSONValue
        do { root = try JSONParser.parseValue(bytes) } catch { throw .badJSON(error.description) }
        guard let list = root.arrayValue else {
            throw .badShape("the file is \(root.kindName), not an array of statements")
        }
        var statements: [Statement] = []
        for (i, item) in list.enumerated() {
            let place = "statement \(i)"
            guard case .object = item else { throw .badShape("\(place) is \(item.kindName), not an object") }
            guard let relations = item["relation"]?.arrayValue, relations.allSatisfy({ $0.stringValue != nil }) else {
                throw .badShape("\(place) has no \"relation\" array of strings")
            }
            guard let target = item["target"], case .object = target, let namespace = target["namespace"]?.stringValue
            else {
                throw .badShape("\(place) has no \"target\" with a \"namespace\"")
            }
            // Web targets (`namespace: web`) are valid statements that say nothing about apps.
            guard namespace == "android_app", relations.contains(where: { $0.stringValue == Self.handleAllURLs }) else {
                continue
            }
            guard let package = target["package_name"]?.stringValue else {
                throw .badShape("\(place).target has no \"package_name\"")
            }
            guard let prints = target["sha256_cert_fingerprints"]?.arrayValue,
                prints.allSatisfy({ $0.stringValue != nil })
            else {
                throw .badShape("\(place).target has no \"sha256_cert_fingerprints\" array of strings")
            }
            statements.append(Statement(packageName: package, fingerprints: prints.compactMap(\.stringValue)))
        }
        self.statements = statements
    }

    /// Every fingerprint the file gives `package`.
    public func fingerprints(for package: String) -> [String] {
        statements.filter { $0.packageName == package }.flatMap(\.fingerprints)
    }
}

/// The SHA-256 certificate fingerprint form Android compares: 32 upper-case hex bytes joined by `:`.
public enum CertificateFingerprint {
    /// Whether `text` is exactly in the `AA:BB:…` form.
    public static func isCanonical(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 32
            && parts.allSatisfy { $0.count == 2 && $0.allSatisfy { $0.isHexDigit && !$0.isLowercase } }
    }

    /// The canonical form of a fingerprint typed with or without colons, in any case; nil
    /// when it is not 32 bytes of hex.
    public static func normalized(_ text: String) -> String? {
        let hex = text.filter { $0 != ":" }.uppercased()
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
        var pairs: [String] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            pairs.append(String(hex[index..<next]))
            index = next
        }
        return pairs.joined(separator: ":")
    }
}
