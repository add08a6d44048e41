import Foundation
import LinkCheck
import LinkFetch
import Postgres
import PushLedgerCLI
import PushLedgerRules
import PushLedgerSupport
import Store

enum AppsCommand: Command {
    static let spec = CommandSpec(
        "apps", summary: "The identities an app's association files must name; where an app lives (place, move)",
        discussion: "iOS app IDs (TEAMID.bundle.id) for apple-app-site-association; Android packages with their signing-certificate SHA-256 fingerprints for assetlinks.json. Several of each (debug and release).",
        subcommands: [
            CommandSpec(
                "set", summary: "Set the iOS app IDs, or one Android package's fingerprints (what is named is replaced)",
                options: [
                    .value("app", help: "The app id", environment: "PUSHLEDGER_APP", required: true),
                    .repeatable("ios-app-id", help: "An iOS app ID, TEAMID.bundle.id (repeat for several; replaces the app's list)", placeholder: "id"),
                    .value("android-package", help: "An Android package name (its fingerprints are replaced)", placeholder: "pkg"),
                    .repeatable("android-cert-sha256", help: "A signing-certificate SHA-256 of that package (AA:BB:… or 64 hex digits)", placeholder: "fp"),
                ]),
            CommandSpec(
                "show", summary: "Show an app's identities",
                options: [
                    .value("app", help: "The app id", environment: "PUSHLEDGER_APP", required: true),
                    .value("format", type: .choice(["table", "json"]), help: "Output format", default: "table"),
                ]),
        ] + ShardsCommand.appSubcommands)

    static func run(_ context: CommandContext) throws -> Int32 {
        if let status = try ShardsCommand.runApps(context) { return status }
        let command = context.command
        let app = command.string("app")!
        let store = LinkStore()
        if command.path.last == "show" {
            let ids = try store.identities(app: app, on: context.connect())
            let rows: [[Cell]] = ids.iosAppIDs.map { [.text("ios"), .text($0), .null] }
                + ids.androidApps.flatMap { a in a.fingerprints.map { [.text("android"), .text(a.packageName), .text($0)] } }
            try context.printTable(format: command.string("format")!, headers: ["platform", "app_id_or_package", "cert_sha256"], rows: rows)
            return 0
        }
        let ios = command.strings("ios-app-id")
        let package = command.string("android-package")
        let prints = command.strings("android-cert-sha256")
        guard !ios.isEmpty || package != nil else { throw CommandFailure(message: "name --ios-app-id or --android-package", exitCode: 64) }
        if let problem = ios.lazy.compactMap(AppIdentities.problem(iosAppID:)).first { throw CommandFailure(message: problem, exitCode: 64) }
        var android: AppIdentities.AndroidApp?
        if let package {
            if let problem = AppIdentities.problem(androidPackage: package) { throw CommandFailure(message: problem, exitCode: 64) }
            guard !prints.isEmpty else { throw CommandFailure(message: "--android-package needs at least one --android-cert-sha256", exitCode: 64) }
            var canonical: [String] = []
            for p in prints {
                guard let c = CertificateFingerprint.normalized(p) else {
                    throw CommandFailure(message: "'\(p)' is not a SHA-256 fingerprint (32 bytes of hex, colons optional)", exitCode: 64)
                }
                canonical.append(c)
            }
            android = .init(packageName: package, fingerprints: canonical)
        } else if !prints.isEmpty {
            throw CommandFailure(message: "--android-cert-sha256 needs --android-package", exitCode: 64)
        }
        try store.set(app: app, iosAppIDs: ios.isEmpty ? nil : ios, android: android, on: context.connect())
        context.logger.info("app identities set", ["app": app, "ios_app_ids": String(ios.count), "android_package": package ?? ""])
        return 0
    }
}

enum LinksCommand: Command {
    static let spec = CommandSpec(
        "links", summary: "Check the association files behind tapped links",
        discussion: "Why taps land on the wrong screen: fetches apple-app-site-association and assetlinks.json as the OS does and judges them for the app.",
        subcommands: [
            CommandSpec(
                "check", summary: "Check each domain's association files; exit 0 all pass, 1 a check fails, 2 could not run",
                discussion: "Without --domain: every host in the links of the app's opens of the last 30 days. Tapped paths are matched against the Apple file. Results are stored for the weekly report.",
                options: [
                    .value("app", help: "The app id", environment: "PUSHLEDGER_APP", required: true),
                    .repeatable("domain", help: "A domain to check (repeatable; default: hosts of tapped links)", placeholder: "host"),
                    .flag("apple-cdn", help: "Also compare with the copy Apple's CDN serves to devices"),
                    .value("ca-file", help: "Also trust the CAs in this PEM file (test and staging servers)", placeholder: "file"),
                    .repeatable("connect-to", help: "curl's HOST:PORT:ADDR:PORT: fetch https://HOST from ADDR:PORT, HOST still used for SNI and the certificate", placeholder: "spec"),
                    .value("format", type: .choice(["table", "json"]), help: "Output format", default: "table"),
                ]),
        ])

    /// Internal, for tests only: a fixture host that plays Apple's CDN.
    static let cdnOverride = "PUSHLEDGER_LINKS_APPLE_CDN_BASE"
    static let window: TimeInterval = 30 * 86_400

    static func run(_ context: CommandContext) throws -> Int32 {
        let command = context.command
        let app = command.string("app")!
        let store = LinkStore()
        let couldNotRun = { (message: String, detail: String?) in CommandFailure(message: message, exitCode: 2, detail: detail) }
        let connection: Connection
        do { connection = try context.connect() } catch let f as CommandFailure { throw couldNotRun(f.message, f.detail) }
        let identities: AppIdentities
        let tapped: [TappedHost]
        do {
            identities = try store.identities(app: app, on: connection)
            tapped = try store.tappedHosts(app: app, since: Date().addingTimeInterval(-window), on: connection)
        } catch { throw couldNotRun("cannot read the app's identities or opens: \(error)", nil) }
        guard !identities.isEmpty else { throw couldNotRun("no identities for \(app); set them with pushledger apps set", nil) }
        let domains = command.strings("domain").isEmpty ? tapped.map(\.host) : command.strings("domain").map { $0.lowercased() }
        guard !domains.isEmpty else { throw couldNotRun("no tapped links in the last 30 days and no --domain given", nil) }

        let fetcher = HTTPSFetcher(extraCAFile: command.string("ca-file"), connectTo: command.strings("connect-to"))
        let checker = LinkChecker(fetcher: fetcher, appleCDNBase: context.environment[cdnOverride] ?? DomainCheck.appleCDNBase)
        let trust: [UInt8]?
        do { trust = try fetcher.trustBundle() } catch { throw couldNotRun(error.message, nil) }
        let checkedAt = Date()
        var report: [DomainReport] = []
        for (index, domain) in domains.enumerated() {
            context.logger.info("checking domain", ["domain": domain, "progress": "\(index + 1)/\(domains.count)"])
            let host = tapped.first { $0.host == domain } ?? TappedHost(host: domain, links: [])
            let results: [CheckResult]
            do {
                results = try checker.check(domain: domain, identities: identities, links: host.links.map { $0.link },
                                            appleCDN: command.flag("apple-cdn"), trust: trust)
            } catch { throw couldNotRun(error.message, nil) }
            do { try store.record(app: app, domain: domain, checkedAt: checkedAt, results: results, on: connection) } catch {
                throw couldNotRun("cannot store the results: \(error)", nil)
            }
            report.append(DomainReport(host: host, results: results))
        }
        context.print(command.string("format") == "json" ? json(app: app, checkedAt: checkedAt, report) : table(report))
        return report.allSatisfy { $0.results.allSatisfy(\.verdict.passes) } ? 0 : 1
    }

    struct DomainReport {
        var host: TappedHost
        var results: [CheckResult]

        /// The misrouted rate beside a result: its path group's for path checks, else the domain's.
        func rate(_ r: CheckResult) -> Rate {
            let counts = host.misrouted(pathGroup: r.check == "apple path" ? r.subject : nil)
            return Rate(counts.misrouted, of: counts.of)
        }
    }

    /// Fits 120 columns: the detail gets what the other columns leave, long cells end in an ellipsis.
    static func table(_ report: [DomainReport]) -> String {
        let clip = { (s: String, n: Int) in s.count <= n ? s : String(s.prefix(max(1, n - 1))) + "…" }
        let headers = ["domain", "check", "subject", "verdict", "misrouted", "detail"]
        let lines = report.flatMap { d in
            d.results.map { r in
                (text: [clip(d.host.host, 26), r.check, clip(r.subject, 28), r.verdict.rawValue], rate: Cell.rate(d.rate(r)), detail: r.detail)
            }
        }
        // The rate column is at most "100.0%*" or its header.
        let used = (0..<4).map { i in ([headers[i]] + lines.map { $0.text[i] }).map(\.count).max() ?? 0 }.reduce(0, +) + headers[4].count
        let room = max(12, 120 - used - 3 * headers.count - 1)
        let rows = lines.map { l -> [Cell] in l.text.map(Cell.text) + [l.rate, .text(clip(l.detail, room))] }
        return Table(headers: headers, rows: rows).terminal()
    }

    static func json(app: String, checkedAt: Date, _ report: [DomainReport]) -> String {
        let rate = { (r: Rate) -> JSONValue in r.denominator == 0 ? .null : .double(r.value ?? 0) }
        let domains: [JSONValue] = report.map { d in
            let all = d.host.misrouted()
            return .object(JSONObject([
                ("domain", .string(d.host.host)), ("misrouted_open_rate", rate(Rate(all.misrouted, of: all.of))),
                ("passed", .bool(d.results.allSatisfy(\.verdict.passes))),
                ("checks", .array(d.results.map { r in
                    .object(JSONObject([("check", .string(r.check)), ("subject", .string(r.subject)), ("verdict", .string(r.verdict.rawValue)),
                                        ("passed", .bool(r.verdict.passes)), ("detail", .string(r.detail)), ("misrouted_open_rate", rate(d.rate(r)))]))
                })),
            ]))
        }
        let root: JSONValue = .object(JSONObject([
            ("app", .string(app)), ("checked_at", .string(Timestamp.rfc3339(checkedAt))),
            ("passed", .bool(report.allSatisfy { $0.results.allSatisfy(\.verdict.passes) })), ("domains", .array(domains)),
        ]))
        return root.jsonText(pretty: true)
    }
}
