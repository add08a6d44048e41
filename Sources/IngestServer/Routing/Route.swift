import Foundation
import HTTPServer
import PushLedgerContract

/// The paths the server answers; anything else is 404.
enum Route: String, Sendable, CaseIterable {
    case telemetry = "/v1/telemetry"
    case sends = "/v1/sends"
    case invalidTokens = "/v1/tokens/invalid"
    case healthz = "/healthz"
    case readyz = "/readyz"
    case metrics = "/metrics"

    /// Methods allowed on the route (the `Allow` header of a 405).
    var methods: [String] {
        switch self {
        case .telemetry: ["POST", "OPTIONS"]
        case .sends: ["POST"]
        case .invalidTokens: ["GET"]
        case .healthz, .readyz, .metrics: ["GET", "HEAD"]
        }
    }

    /// The key scope a route needs; nil for the open operations endpoints.
    var scope: String? {
        switch self {
        case .telemetry: "telemetry"
        case .sends, .invalidTokens: "sends"
        case .healthz, .readyz, .metrics: nil
        }
    }

    var endpoint: IngestEndpoint? {
        switch self {
        case .telemetry: .telemetry
        case .sends: .sends
        case .invalidTokens, .healthz, .readyz, .metrics: nil
        }
    }

    /// Browsers post telemetry from a page's origin (the browser SDK): `/v1/telemetry` answers
    /// CORS for any origin. Its key travels in `Authorization`, never in a cookie, so no origin
    /// gains anything a page could not already send. Sends and the token feed take `sends` keys,
    /// which belong on servers: they answer no CORS, so a browser will not read them.
    var corsHeaders: [(name: String, value: String)] {
        guard self == .telemetry else { return [] }
        return [("Access-Control-Allow-Origin", "*"), ("Access-Control-Expose-Headers", "Retry-After")]
    }

    /// Resolves a request line: the route, or the 404/405 to answer.
    static func resolve(method: String, path: String) -> Result<Route, RouteError> {
        guard let route = Route(rawValue: path) else { return .failure(.notFound) }
        guard route.methods.contains(method) else { return .failure(.methodNotAllowed(allow: route.methods)) }
        return .success(route)
    }

    /// The `dry_run` query argument: absent or `false` is a real request, `true` a dry run;
    /// nil for anything else (a typo must not store what was meant as a test).
    static func dryRun(_ argument: String?) -> Bool? {
        switch argument {
        case nil, "false": false
        case "true": true
        default: nil
        }
    }

    /// The `endpoint` label of request metrics: known paths only, so the label stays bounded.
    static func metricsLabel(path: String) -> String {
        Route(rawValue: path)?.rawValue ?? "other"
    }
}

enum RouteError: Error, Equatable {
    case notFound
    case methodNotAllowed(allow: [String])
}

/// How an ingest body is encoded, from `Content-Type` and `Content-Encoding`.
struct BodyFormat: Sendable, Equatable {
    var sendsFormat: SendsFormat
    var gzip: Bool

    enum Problem: Error, Equatable {
        case unsupportedType(String?)
        case unsupportedEncoding(String)
    }

    /// Checks the headers against what `route` accepts: JSON everywhere, NDJSON on `/v1/sends`,
    /// identity or gzip encoding.
    static func negotiate(route: Route, contentType: String?, contentEncoding: String?) -> Result<BodyFormat, Problem> {
        let mediaType = contentType.map { type in
            (type.split(separator: ";", maxSplits: 1).first ?? "").trimmingHeaderWhitespace.lowercased()
        }
        let format: SendsFormat
        switch mediaType {
        case "application/json": format = .json
        case "application/x-ndjson" where route == .sends: format = .ndjson
        default: return .failure(.unsupportedType(contentType))
        }
        switch contentEncoding?.trimmingHeaderWhitespace.lowercased() {
        case nil, "", "identity": return .success(BodyFormat(sendsFormat: format, gzip: false))
        case "gzip", "x-gzip": return .success(BodyFormat(sendsFormat: format, gzip: true))
        case let other?: return .failure(.unsupportedEncoding(other))
        }
    }
}

/// The credential of an `Authorization: Bearer <key>` header, or nil when there is none.
func bearerToken(_ authorization: String?) -> String? {
    guard let authorization else { return nil }
    let parts = authorization.trimmingHeaderWhitespace.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let token = parts[1].trimmingHeaderWhitespace
    return token.isEmpty ? nil : String(token)
}
