import PushLedgerSupport

/// Judges one domain's association files for one app: how each file is served, whether it
/// names the app, which tapped paths the Apple file covers, and whether Apple's CDN agrees.
public struct DomainCheck: Sendable {
    public var domain: String
    public var identities: AppIdentities
    /// Links tapped on this domain (the Apple file is checked for each path group once).
    public var links: [TappedLink]

    public init(domain: String, identities: AppIdentities, links: [TappedLink]) {
        self.domain = domain
        self.identities = identities
        self.links = links
    }

    public static func appleURL(_ domain: String) -> String {
        "https://\(domain)/.well-known/apple-app-site-association"
    }
    public static func androidURL(_ domain: String) -> String { "https://\(domain)/.well-known/assetlinks.json" }
    /// Apple's CDN, which devices read the file from (not the origin).
    public static let appleCDNBase = "https://app-site-association.cdn-apple.com/a/v1/"

    /// Every check's result, Apple first. A platform the app has no identity for is not checked.
    public func evaluate(apple: FetchedFile?, android: FetchedFile?, appleCDN: FetchedFile? = nil) -> [CheckResult] {
        var results: [CheckResult] = []
        if let apple, !identities.iosAppIDs.isEmpty { results += appleChecks(apple, cdn: appleCDN) }
        if let android, !identities.androidApps.isEmpty { results += androidChecks(android) }
        return results
    }

    /// The file's content, or the failing `… file` result.
    private func read<T>(
        _ file: FetchedFile, check: String, parse: ([UInt8]) throws(AssociationProblem) -> T
    ) -> Result<T, Failed> {
        if let problem = file.servingProblem {
            return .failure(Failed(CheckResult(check: check, verdict: problem.verdict, detail: problem.detail)))
        }
        do {
            return .success(try parse(file.body))
        } catch .badJSON(let m) {
            return .failure(Failed(CheckResult(check: check, verdict: .badJSON, detail: m)))
        } catch let problem {
            return .failure(Failed(CheckResult(check: check, verdict: .badShape, detail: problem.description)))
        }
    }

    struct Failed: Error {
        let result: CheckResult
        init(_ r: CheckResult) { result = r }
    }

    private func appleChecks(_ file: FetchedFile, cdn: FetchedFile?) -> [CheckResult] {
        var results: [CheckResult] = []
        let parsed = read(file, check: "apple file") { (b) throws(AssociationProblem) in try AppleAssociation(json: b) }
        if let cdn { results.append(Self.compareCDN(origin: file, originParsed: try? parsed.get(), cdn: cdn)) }
        guard case .success(let association) = parsed else {
            if case .failure(let f) = parsed { results.insert(f.result, at: 0) }
            return results
        }
        results.insert(
            CheckResult(check: "apple file", verdict: .ok, detail: "\(association.details.count) applinks entries"),
            at: 0)
        for id in identities.iosAppIDs {
            let named = association.names(id)
            results.append(
                CheckResult(
                    check: "apple app", subject: id, verdict: named ? .named : .notNamed,
                    detail: named ? "applinks names \(id)" : "no applinks entry names \(id)"))
        }
        // Paths are judged for the first configured app the file names (the release build, by convention).
        guard let appID = identities.iosAppIDs.first(where: association.names) else { return results }
        var seen = Set<String>()
        for link in links where seen.insert(link.pathGroup).inserted {
            let group = links.filter { $0.pathGroup == link.pathGroup }
            results.append(Self.pathResult(group: link.pathGroup, links: group, association: association, appID: appID))
        }
        return results
    }

    /// A path group passes only when every tapped link in it is covered; otherwise the first
    /// link that is not decides the verdict and is named.
    static func pathResult(
        group: String, links: [TappedLink], association: AppleAssociation, appID: String
    ) -> CheckResult {
        var coveredRule = ""
        for link in links {
            switch association.coverage(of: link, for: appID) {
            case .covered(let rule): coveredRule = rule
            case .excluded(let rule):
                return CheckResult(
                    check: "apple path", subject: group, verdict: .excluded,
                    detail: "\(link.path) is excluded by \"\(rule)\"")
            case .notCovered:
                return CheckResult(
                    check: "apple path", subject: group, verdict: .notCovered,
                    detail: "no entry for \(appID) covers \(link.path)")
            }
        }
        let count = links.count == 1 ? "1 tapped link" : "\(links.count) tapped links"
        return CheckResult(
            check: "apple path", subject: group, verdict: .covered, detail: "\(count) covered by \"\(coveredRule)\"")
    }

    static func compareCDN(origin: FetchedFile, originParsed: AppleAssociation?, cdn: FetchedFile) -> CheckResult {
        let check = "apple cdn"
        if let problem = cdn.servingProblem {
            return CheckResult(check: check, verdict: .cdnDiffers, detail: "Apple's CDN: \(problem.detail)")
        }
        guard let cdnParsed = try? AppleAssociation(json: cdn.body) else {
            return CheckResult(
                check: check, verdict: .cdnDiffers, detail: "Apple's CDN holds a copy that does not parse")
        }
        guard let originParsed else {
            return CheckResult(
                check: check, verdict: .cdnDiffers,
                detail: "Apple's CDN holds a copy; the origin serves none that parses")
        }
        return cdnParsed == originParsed
            ? CheckResult(check: check, verdict: .cdnSame, detail: "Apple's CDN holds the origin's rules")
            : CheckResult(
                check: check, verdict: .cdnDiffers,
                detail: "Apple's CDN holds other rules than the origin (devices use the CDN copy)")
    }

    private func androidChecks(_ file: FetchedFile) -> [CheckResult] {
        let parsed = read(file, check: "android file") { (b) throws(AssociationProblem) in try AssetLinks(json: b) }
        guard case .success(let links) = parsed else {
            if case .failure(let f) = parsed { return [f.result] }
            return []
        }
        var results = [
            CheckResult(
                check: "android file", verdict: .ok, detail: "\(links.statements.count) handle_all_urls statements")
        ]
        for app in identities.androidApps {
            results.append(Self.androidAppResult(app, in: links))
        }
        return results
    }

    static func androidAppResult(_ app: AppIdentities.AndroidApp, in links: AssetLinks) -> CheckResult {
        let given = links.fingerprints(for: app.packageName)
        let result = { (v: Verdict, d: String) in
            CheckResult(check: "android app", subject: app.packageName, verdict: v, detail: d)
        }
        guard links.statements.contains(where: { $0.packageName == app.packageName }) else {
            return result(.notNamed, "no handle_all_urls statement for \(app.packageName)")
        }
        if let match = given.first(where: app.fingerprints.contains) {
            return result(.named, "\(app.packageName) with fingerprint \(match.prefix(8))…")
        }
        if let bad = given.first(where: { !CertificateFingerprint.isCanonical($0) }) {
            let ours = CertificateFingerprint.normalized(bad).map(app.fingerprints.contains) == true
            return result(
                .fingerprintMalformed,
                "\"\(bad.prefix(20))…\" is not in the AA:BB:… upper-case form"
                    + (ours ? " (it is this app's certificate, written wrongly)" : ""))
        }
        return result(
            .fingerprintMismatch,
            "\(given.count) fingerprints for \(app.packageName), none of this app's signing certificates")
    }
}
