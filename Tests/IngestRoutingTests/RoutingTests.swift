import HTTPServer
import TestSupport
import Testing

@testable import IngestServer

@Suite("Routing, negotiation and keys (no network)")
struct RoutingTests {
    @Test func resolvesRoutesAndMethods() throws {
        #expect(try Route.resolve(method: "POST", path: "/v1/telemetry").get() == .telemetry)
        #expect(try Route.resolve(method: "HEAD", path: "/metrics").get() == .metrics)
        #expect(throws: RouteError.notFound) { try Route.resolve(method: "POST", path: "/v1/telemetry/").get() }
        #expect(throws: RouteError.methodNotAllowed(allow: ["POST"])) {
            try Route.resolve(method: "GET", path: "/v1/sends").get()
        }
        #expect(try Route.resolve(method: "OPTIONS", path: "/v1/telemetry").get() == .telemetry)
        #expect(Route.metricsLabel(path: "/wp-admin") == "other")
    }

    @Test func eachListenerServesItsRouteSet() {
        let operations: [Route] = [.healthz, .readyz, .metrics]
        for route in Route.allCases {
            #expect(RouteSet.all.serves(route))
            #expect(RouteSet.ingest.serves(route) == !operations.contains(route), "\(route)")
            #expect(RouteSet.operations.serves(route) == operations.contains(route), "\(route)")
        }
    }

    @Test func negotiatesBodyFormats() throws {
        #expect(
            try BodyFormat.negotiate(route: .sends, contentType: "application/x-ndjson", contentEncoding: "GZIP").get()
                == BodyFormat(sendsFormat: .ndjson, gzip: true))
        #expect(
            try BodyFormat.negotiate(
                route: .telemetry, contentType: "application/json;charset=utf-8", contentEncoding: "identity"
            ).get()
                == BodyFormat(sendsFormat: .json, gzip: false))
        #expect(
            try BodyFormat.negotiate(
                route: .sends, contentType: " Application/JSON\t; charset=utf-8", contentEncoding: "\tgzip "
            ).get()
                == BodyFormat(sendsFormat: .json, gzip: true))
        #expect(throws: BodyFormat.Problem.unsupportedType("application/x-ndjson")) {
            try BodyFormat.negotiate(route: .telemetry, contentType: "application/x-ndjson", contentEncoding: nil).get()
        }
        #expect(throws: BodyFormat.Problem.unsupportedType(nil)) {
            try BodyFormat.negotiate(route: .sends, contentType: nil, contentEncoding: nil).get()
        }
        #expect(throws: BodyFormat.Problem.unsupportedEncoding("gzip, br")) {
            try BodyFormat.negotiate(route: .sends, contentType: "application/json", contentEncoding: "gzip, br").get()
        }
    }

    @Test func parsesBearerTokens() {
        #expect(bearerToken("Bearer abc") == "abc")
        #expect(bearerToken("bearer   abc ") == "abc")
        #expect(bearerToken("Bearer") == nil)
        #expect(bearerToken("Basic abc") == nil)
        #expect(bearerToken(nil) == nil)
        #expect(bearerToken("\t Bearer \tabc\t ") == "abc")
        #expect(bearerToken("Bearer  \t ") == nil)
    }

    @Test func headerWhitespaceIsSpacesAndTabsOnly() {
        #expect(" \t a b \t".trimmingHeaderWhitespace == "a b")
        #expect("abc".trimmingHeaderWhitespace == "abc")
        #expect(" \t ".trimmingHeaderWhitespace.isEmpty && "".trimmingHeaderWhitespace.isEmpty)
        #expect("\r\nabc".trimmingHeaderWhitespace == "\r\nabc")
    }

    @Test func verifiesKeysByHash() {
        let verifier = KeyVerifier()
        #expect(verifier.verify(TestKeys.telemetry) == .unavailable)
        verifier.replace(with: TestKeys.records)
        guard case .valid(let record) = verifier.verify(TestKeys.telemetry) else {
            Issue.record("telemetry key not valid")
            return
        }
        #expect(record.id == "k1" && record.scope == "telemetry")
        #expect(verifier.verify(TestKeys.telemetry + "x") == .unknown)
        #expect(verifier.verify(String(TestKeys.telemetry.dropLast())) == .unknown)
        guard case .revoked = verifier.verify(TestKeys.revoked) else {
            Issue.record("revoked key not reported revoked")
            return
        }
    }
}
