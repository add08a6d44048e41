import Foundation
import LinkCheck
import LinkFetch
import Postgres
import PushLedgerRules
import PushLedgerSupport
import Store
import TableRendering

/// A `links check` run that could not judge anything: a safe one-line message (the command
/// exits 2), and detail for the log.
public struct LinkAuditError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var detail: String?

    public init(_ message: String, detail: String? = nil) {
        self.message = message
        self.detail = detail
    }

    public var description: String { message }
}

/// Checks the association files behind an app's tapped links: reads the app's identities and
/// the hosts of its recent opens, fetches each domain's files as the OS verifiers do, judges
/// them, and stores the results (the weekly report shows them).
public struct LinkAudit: Sendable {
    /// How far back tapped links are read.
    public static let window: TimeInterval = 30 * 86_400

    public var app: String
    /// Domains to check; empty: every host of the app's tapped links of the last ``window``.
    public var domains: [String]
    /// Also compare with the copy Apple's CDN serves to devices.
    public var appleCDN: Bool
    public var fetcher: HTTPSFetcher
    /// Where Apple's CDN is (tests point it at a fixture host).
    public var appleCDNBase: String

    public init(
        app: String, domains: [String], appleCDN: Bool, fetcher: HTTPSFetcher,
        appleCDNBase: String = DomainCheck.appleCDNBase
    ) {
        self.app = app
        self.domains = domains
        self.appleCDN = appleCDN
        self.fetcher = fetcher
        self.appleCDNBase = appleCDNBase
    }

    /// Runs the checks and stores each domain's results; `progress` hears of each domain
    /// (index from 1) before it is fetched.
    public func run(
        on connection: Connection, progress: (_ domain: String, _ index: Int, _ count: Int) -> Void = { _, _, _ in }
    ) throws(LinkAuditError) -> LinkAuditReport {
        let store = LinkStore()
        let identities: AppIdentities
        let tapped: [TappedHost]
        do {
            identities = try store.identities(app: app, on: connection)
            tapped = try store.tappedHosts(app: app, since: Date().addingTimeInterval(-Self.window), on: connection)
        } catch { throw LinkAuditError("cannot read the app's identities or opens: \(error)") }
        guard !identities.isEmpty else {
            throw LinkAuditError("no identities for \(app); set them with pushledger apps set")
        }
        let domains = self.domains.isEmpty ? tapped.map(\.host) : self.domains.map { $0.lowercased() }
        guard !domains.isEmpty else {
            throw LinkAuditError("no tapped links in the last 30 days and no --domain given")
        }

        let checker = LinkChecker(fetcher: fetcher, appleCDNBase: appleCDNBase)
        let trust: [UInt8]?
        do { trust = try fetcher.trustBundle() } catch { throw LinkAuditError(error.message) }
        let checkedAt = Date()
        var report = LinkAuditReport(app: app, checkedAt: checkedAt, domains: [])
        for (index, domain) in domains.enumerated() {
            progress(domain, index + 1, domains.count)
            let host = tapped.first { $0.host == domain } ?? TappedHost(host: domain, links: [])
            let results: [CheckResult]
            do {
                results = try checker.check(
                    domain: domain, identities: identities, links: host.links.map { $0.link }, appleCDN: appleCDN,
                    trust: trust)
            } catch { throw LinkAuditError(error.message) }
            do {
                try store.record(app: app, domain: domain, checkedAt: checkedAt, results: results, on: connection)
            } catch {
                throw LinkAuditError("cannot store the results: \(error)")
            }
            report.domains.append(.init(host: host, results: results))
        }
        return report
    }
}

/// What a ``LinkAudit`` found, per domain, with the misrouted-open rates beside the verdicts.
public struct LinkAuditReport: Sendable {
    public struct Domain: Sendable {
        public var host: TappedHost
        public var results: [CheckResult]

        /// The misrouted rate beside a result: its path group's for path checks, else the domain's.
        func rate(_ r: CheckResult) -> Rate {
            let counts = host.misrouted(pathGroup: r.check == "apple path" ? r.subject : nil)
            return Rate(counts.misrouted, of: counts.of)
        }
    }

    public var app: String
    public var checkedAt: Date
    public var domains: [Domain]

    /// Whether every check of every domain passed.
    public var passed: Bool { domains.allSatisfy { $0.results.allSatisfy(\.verdict.passes) } }

    /// Fits 120 columns: the detail gets what the other columns leave, long cells end in an ellipsis.
    public func table() -> String {
        let clip = { (s: String, n: Int) in s.count <= n ? s : String(s.prefix(max(1, n - 1))) + "…" }
        let headers = ["domain", "check", "subject", "verdict", "misrouted", "detail"]
        let lines = domains.flatMap { d in
            d.results.map { r in
                (
                    text: [clip(d.host.host, 26), r.check, clip(r.subject, 28), r.verdict.rawValue],
                    rate: Cell.rate(d.rate(r)),
                    detail: r.detail
                )
            }
        }
        // The rate column is at most "100.0%*" or its header.
        let used =
            (0..<4).map { i in ([headers[i]] + lines.map { $0.text[i] }).map(\.count).max() ?? 0 }.reduce(0, +)
            + headers[4].count
        let room = max(12, 120 - used - 3 * headers.count - 1)
        let rows = lines.map { l -> [Cell] in l.text.map(Cell.text) + [l.rate, .text(clip(l.detail, room))] }
        return Table(headers: headers, rows: rows).terminal()
    }

    public func json() -> String {
        let rate = { (r: Rate) -> JSONValue in r.denominator == 0 ? .null : .double(r.value ?? 0) }
        let domains: [JSONValue] = self.domains.map { d in
            let all = d.host.misrouted()
            return .object(
                JSONObject([
                    ("domain", .string(d.host.host)), ("misrouted_open_rate", rate(Rate(all.misrouted, of: all.of))),
                    ("passed", .bool(d.results.allSatisfy(\.verdict.passes))),
                    (
                        "checks",
                        .array(
                            d.results.map { r in
                                .object(
                                    JSONObject([
                                        ("check", .string(r.check)), ("subject", .string(r.subject)),
                                        ("verdict", .string(r.verdict.rawValue)),
                                        ("passed", .bool(r.verdict.passes)), ("detail", .string(r.detail)),
                                        ("misrouted_open_rate", rate(d.rate(r))),
                                    ]))
                            })
                    ),
                ]))
        }
        let root: JSONValue = .object(
            JSONObject([
                ("app", .string(app)), ("checked_at", .string(Timestamp.rfc3339(checkedAt))),
                ("passed", .bool(passed)), ("domains", .array(domains)),
            ]))
        return root.jsonText(pretty: true)
    }
}
