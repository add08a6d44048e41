import Foundation
import LinkCheck
import Postgres

/// A link host's taps: each distinct link with its opens and misrouted counts.
public struct TappedHost: Sendable, Equatable {
    public var host: String
    public var links: [(link: TappedLink, opens: Int, landedReported: Int, misrouted: Int)]

    public init(host: String, links: [(link: TappedLink, opens: Int, landedReported: Int, misrouted: Int)]) {
        self.host = host
        self.links = links
    }

    public static func == (a: TappedHost, b: TappedHost) -> Bool {
        a.host == b.host && a.links.map(\.link) == b.links.map(\.link) && a.links.map(\.opens) == b.links.map(\.opens)
    }

    /// Misrouted opens and opens that reported a landing, for all links or one path group.
    public func misrouted(pathGroup: String? = nil) -> (misrouted: Int, of: Int) {
        let chosen = links.filter { pathGroup == nil || $0.link.pathGroup == pathGroup }
        return (chosen.reduce(0) { $0 + $1.misrouted }, chosen.reduce(0) { $0 + $1.landedReported })
    }
}

/// App identities and link-check results in Postgres (sql/migrations/0004_link_association.sql, sql/reports/links.sql).
public struct LinkStore: Sendable {
    public init() {}

    /// Replaces what the call names: the iOS app IDs when `iosAppIDs` is given, the
    /// fingerprints of `android.packageName` when `android` is given. Input is validated first.
    public func set(
        app: String, iosAppIDs: [String]?, android: AppIdentities.AndroidApp?, on connection: Connection
    ) throws {
        try connection.transaction { c in
            if let iosAppIDs {
                try c.execute("delete from app_ios_identities where app_id = \(app)")
                for (position, id) in iosAppIDs.enumerated() {
                    try c.execute(
                        """
                        insert into app_ios_identities (app_id, ios_app_id, position) values (\(app), \(id), \
                        \(position)) on conflict do nothing
                        """
                    )
                }
            }
            if let android {
                try c.execute(
                    "delete from app_android_identities where app_id = \(app) and package_name = \(android.packageName)"
                )
                for print in android.fingerprints {
                    try c.execute(
                        """
                        insert into app_android_identities (app_id, package_name, cert_sha256) values (\(app), \
                        \(android.packageName), \(print)) on conflict do nothing
                        """
                    )
                }
            }
        }
    }

    public func identities(app: String, on connection: Connection) throws -> AppIdentities {
        let ios = try connection.query(
            "select ios_app_id from app_ios_identities where app_id = \(app) order by position, ios_app_id")
        let android = try connection.query(
            """
            select package_name, cert_sha256 from app_android_identities where app_id = \(app) order by \
            package_name, cert_sha256
            """
        )
        var apps: [AppIdentities.AndroidApp] = []
        for row in android {
            let package: String = try row.decode("package_name")
            let print: String = try row.decode("cert_sha256")
            if apps.last?.packageName == package {
                apps[apps.count - 1].fingerprints.append(print)
            } else {
                apps.append(.init(packageName: package, fingerprints: [print]))
            }
        }
        return AppIdentities(iosAppIDs: try ios.map { try $0.decode("ios_app_id") }, androidApps: apps)
    }

    /// Hosts of links in the app's opens since `since`, most opened first.
    public func tappedHosts(app: String, since: Date, on connection: Connection) throws -> [TappedHost] {
        let rows = try connection.query(
            "select host, link, opens, landed_reported, misrouted from pushledger_tapped_links(\(app), \(since))")
        var hosts: [TappedHost] = []
        for row in rows {
            let host: String = try row.decode("host")
            guard let link = TappedLink(try row.decode("link") as String) else { continue }
            let entry = (
                link, try row.decode("opens") as Int, try row.decode("landed_reported") as Int,
                try row.decode("misrouted") as Int
            )
            if let i = hosts.firstIndex(where: { $0.host == host }) {
                hosts[i].links.append(entry)
            } else {
                hosts.append(TappedHost(host: host, links: [entry]))
            }
        }
        return hosts.sorted {
            ($0.links.reduce(0) { $0 + $1.opens }, $1.host) > ($1.links.reduce(0) { $0 + $1.opens }, $0.host)
        }
    }

    /// Stores one run's results for `domain`, all with `checkedAt`.
    public func record(
        app: String, domain: String, checkedAt: Date, results: [CheckResult], on connection: Connection
    ) throws {
        try connection.transaction { c in
            for r in results {
                try c.execute(
                    """
                    insert into link_check_results (app_id, checked_at, domain, check_name, subject, verdict, passed, \
                    detail)
                    values (\(app), \(checkedAt), \(domain), \(r.check), \(r.subject), \(r.verdict.rawValue), \
                    \(r.verdict.passes), \(r.detail))
                    """)
            }
        }
    }
}
