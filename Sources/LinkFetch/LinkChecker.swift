import LinkCheck

/// Checks domains over HTTPS: both association files, optionally Apple's CDN copy, judged by
/// `DomainCheck`.
public struct LinkChecker: Sendable {
    public var fetcher: HTTPSFetcher
    /// Where Apple's CDN copy is read from, the domain appended. Only tests change it (to a
    /// fixture host playing the CDN).
    public var appleCDNBase: String

    public init(fetcher: HTTPSFetcher, appleCDNBase: String = DomainCheck.appleCDNBase) {
        self.fetcher = fetcher
        self.appleCDNBase = appleCDNBase
    }

    /// Every check of `domain`. Throws only when nothing could be fetched at all (bad CA file).
    public func check(
        domain: String, identities: AppIdentities, links: [TappedLink], appleCDN: Bool,
        trust: [UInt8]?
    ) throws(FetchSetupError) -> [CheckResult] {
        let apple =
            identities.iosAppIDs.isEmpty
            ? nil
            : try fetcher.fetch(DomainCheck.appleURL(domain), limit: FetchedFile.appleSizeLimit, trust: trust)
        let cdn =
            apple == nil || !appleCDN
            ? nil
            : try fetcher.fetch(appleCDNBase + domain, limit: FetchedFile.appleSizeLimit, trust: trust)
        let android =
            identities.androidApps.isEmpty
            ? nil
            : try fetcher.fetch(DomainCheck.androidURL(domain), limit: FetchedFile.androidSizeLimit, trust: trust)
        return DomainCheck(domain: domain, identities: identities, links: links).evaluate(
            apple: apple, android: android, appleCDN: cdn)
    }
}
