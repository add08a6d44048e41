import Foundation
import HTTPClient
import TestSupport
import Testing

/// `pushledger serve --tls-cert --tls-key` as a child process, with certificates made by
/// `scripts/test-ca.sh`: HTTPS for curl and the project's client, TLS 1.1 and plain HTTP
/// refused, a certificate reload on SIGHUP that new connections see while an upload in flight
/// completes, a certificate that cannot be used refused at start and kept out on SIGHUP, and the
/// admin listener.
@Suite("TLS")
struct TLSTests {
    private static func telemetry(_ events: Int) -> (body: [UInt8], ids: Set<String>) {
        let made = (0..<events).map { _ in Fixtures.exposure() }
        return (Fixtures.telemetry(events: made), Set(made.map { $0["event_id"] as! String }))
    }

    private static func post(_ database: FaultDatabase, _ body: [UInt8], path: String = "/v1/telemetry") -> [UInt8] {
        RawRequest.make(
            "POST", path,
            headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(database.telemetryKey)")],
            body: body)
    }

    @Test func httpsTakesBatchesFromCurlAndTheClientAndRefusesTLS11AndPlainHTTP() throws {
        let database = try FaultDatabase.fresh()
        let ca = try TestCA("serve")
        defer { ca.remove() }
        let server = try ServeProcess(
            databaseURL: database.url, arguments: ["--tls-cert", ca.certificate, "--tls-key", ca.key])
        let url = "https://127.0.0.1:\(server.port)"

        // curl, trusting only the test CA, posts a real batch.
        let byCurl = Self.telemetry(3)
        let file = ca.directory.appendingPathComponent("batch.json")
        try Data(byCurl.body).write(to: file)
        let posted = try TLSTools.curl([
            "--cacert", ca.caFile, "-H", "Content-Type: application/json", "-H",
            "Authorization: Bearer \(database.telemetryKey)",
            "--data-binary", "@\(file.path)", "-w", "\n%{http_code}", "\(url)/v1/telemetry",
        ])
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(posted.stdout.hasSuffix("\n200") && posted.stdout.contains("\"accepted\":3"), "\(posted.stdout)")

        // The project's client, with the CA bundle; without it the certificate is not trusted.
        let byClient = Self.telemetry(2)
        let client = try HTTPClient(baseURL: url, timeout: 30, caFile: ca.caFile)
        let reply = try client.post(
            path: "/v1/telemetry", body: byClient.body, contentType: "application/json", gzip: true,
            bearer: database.telemetryKey)
        #expect(reply.status == 200 && reply.bodyText.contains("\"accepted\":2"), "\(reply.bodyText)")
        let again = try client.post(
            path: "/v1/telemetry", body: Self.telemetry(1).body, contentType: "application/json",
            bearer: database.telemetryKey)
        #expect(again.status == 200)
        let untrusting = try HTTPClient(baseURL: url, timeout: 30)
        let refused = #expect(throws: HTTPClientError.self) {
            try untrusting.post(
                path: "/v1/telemetry", body: byClient.body, contentType: "application/json",
                bearer: database.telemetryKey)
        }
        #expect(refused?.kind == .untrusted && refused?.isRetryable == false)
        // `pushledger simulate` through that client, with --ca-file.
        let simulated = try CommandRunner.run([
            "simulate", "--url", url, "--ca-file", ca.caFile, "--telemetry-key", database.telemetryKey, "--sends-key",
            database.sendsKey, "--installs", "20", "--days", "1", "--no-progress",
        ])
        #expect(
            simulated.status == 0 && (simulated.stdout + simulated.stderr).contains("duplicates 0, rejected 0"),
            "\(simulated.stderr)")

        // TLS 1.1: curl offers it (the ClientHello goes out, ciphers opened to level 0 so the
        // client itself allows it) and the server hangs up without a ServerHello. The same
        // command capped at TLS 1.2 gets through, so the refusal is the server's.
        let legacy = [
            "-v", "--ciphers", "DEFAULT:@SECLEVEL=0", "--cacert", ca.caFile, "-o", "/dev/null", "\(url)/v1/telemetry",
        ]
        let tls11 = try TLSTools.curl(["--tlsv1.1", "--tls-max", "1.1"] + legacy)
        #expect(tls11.status != 0)
        #expect(tls11.stderr.contains("TLSv1.1 (OUT), TLS handshake, Client hello"), "\(tls11.stderr)")
        #expect(!tls11.stderr.contains("(IN), TLS handshake, Server hello"), "\(tls11.stderr)")
        let tls12 = try TLSTools.curl(["--tlsv1.1", "--tls-max", "1.2"] + legacy)
        #expect(tls12.status == 0 && tls12.stderr.contains("(IN), TLS handshake, Server hello"), "\(tls12.stderr)")
        // TLS 1.2 only with forward secrecy and AEAD: RSA key exchange and CBC are refused, and
        // of two suites the client offers the server picks its own first (AES-256).
        func tls12With(_ ciphers: String) throws -> CommandRunner.Output {
            try TLSTools.curl([
                "-v", "--tlsv1.2", "--tls-max", "1.2", "--ciphers", ciphers + ":@SECLEVEL=0", "--cacert", ca.caFile,
                "-o", "/dev/null", "\(url)/healthz",
            ])
        }
        for refused in [
            "AES128-SHA", "AES256-GCM-SHA384", "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA384",
            "DHE-RSA-AES128-GCM-SHA256",
        ] {
            #expect(try tls12With(refused).status != 0, "\(refused) was accepted")
        }
        let chosen = try tls12With("ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384")
        #expect(chosen.status == 0 && chosen.stderr.contains("ECDHE-RSA-AES256-GCM-SHA384"), "\(chosen.stderr)")

        // Plain HTTP on the TLS port gets no answer at all, and nothing is stored from it.
        let storedBefore = try database.count("select count(*)::int8 from event_ids")
        let plain = try RawHTTPConnection(port: server.port, receiveTimeout: 10)
        plain.write(Self.post(database, Self.telemetry(1).body))
        #expect((try? plain.readReply()) == nil)
        #expect(try TLSTools.status("http://127.0.0.1:\(server.port)/healthz") == 0)

        server.send(SIGTERM)
        #expect(server.waitForExit() == (true, 0))
        #expect(try database.audit(byCurl.ids.union(byClient.ids)) == (0, 0))
        #expect(try database.count("select count(*)::int8 from event_ids") == storedBefore)
    }

    @Test func sighupGivesNewConnectionsTheNewCertificateWhileAnUploadInFlightCompletes() throws {
        let database = try FaultDatabase.fresh()
        let first = try TestCA("first"), second = try TestCA("second")
        let live = try TestCA("live")  // the files the server is pointed at, overwritten below
        defer { [first, second, live].forEach { $0.remove() } }
        func install(certificate: String, key: String) throws {
            for (from, to) in [(certificate, live.certificate), (key, live.key)] {
                try FileManager.default.removeItem(atPath: to)
                try FileManager.default.copyItem(atPath: from, toPath: to)
            }
        }
        try install(certificate: first.certificate, key: first.key)
        let server = try ServeProcess(
            databaseURL: database.url, arguments: ["--tls-cert", live.certificate, "--tls-key", live.key])
        let url = "https://127.0.0.1:\(server.port)"
        #expect(try TLSTools.presentedSerial(port: server.port) == first.serial)

        // An upload started before the SIGHUP: headers and half the body, then a pause.
        let slow = Self.telemetry(4)
        let request = Self.post(database, slow.body)
        let half = request.count - slow.body.count / 2
        let upload = try SlowTLSUpload(port: server.port, caFile: first.caFile)
        upload.write(Array(request[..<half]))
        waitUntil {
            let metrics = try? TLSTools.curl(["--cacert", first.caFile, "\(url)/metrics"]).stdout
            return metrics?.contains("\npushledger_http_requests_in_flight 2") == true  // the upload and this scrape
        }

        try install(certificate: second.certificate, key: second.key)
        let signalled = ContinuousClock.now
        server.send(SIGHUP)
        waitUntil { server.logText.contains("tls certificate reloaded") }
        let reloadTime = ContinuousClock.now - signalled
        // New connections: the new certificate, which only the new CA verifies.
        #expect(try TLSTools.presentedSerial(port: server.port) == second.serial)
        #expect(try TLSTools.status("\(url)/healthz", ["--cacert", second.caFile]) == 200)
        let oldCA = try TLSTools.curl(["--cacert", first.caFile, "-o", "/dev/null", "\(url)/healthz"])
        #expect(oldCA.status == 60, "\(oldCA.stderr)")  // CURLE_PEER_FAILED_VERIFICATION

        // The upload finishes on its old connection: 200, its events stored.
        upload.write(Array(request[half...]))
        let answer = upload.finish()
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("\"accepted\":4"), "\(answer)")
        #expect(try database.audit(slow.ids) == (0, 0))

        // A certificate that cannot be used on SIGHUP: an error line, the current one stays.
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: live.certificate))
        server.send(SIGHUP)
        waitUntil { server.logText.contains("tls certificate not reloaded") }
        try install(certificate: first.certificate, key: second.key)  // a pair that does not match
        server.send(SIGHUP)
        waitUntil { server.logText.components(separatedBy: "tls certificate not reloaded").count == 3 }
        #expect(server.logText.contains("do not match"))
        #expect(try TLSTools.presentedSerial(port: server.port) == second.serial)
        let afterRefusals = Self.telemetry(1)
        let client = try HTTPClient(baseURL: url, timeout: 30, caFile: second.caFile)
        #expect(
            try client.post(
                path: "/v1/telemetry", body: afterRefusals.body, contentType: "application/json",
                bearer: database.telemetryKey
            ).status == 200)

        server.send(SIGTERM)
        #expect(server.waitForExit() == (true, 0))
        #expect(try database.audit(slow.ids.union(afterRefusals.ids)) == (0, 0))
        FaultFigures.logger.info(
            "fault figures",
            [
                "test": "tls reload",
                "reload_ms": "\(reloadTime.milliseconds)",
                "upload_events": "\(slow.ids.count)", "refused_reloads": "2",
            ])
    }

    @Test func reloadsUnderLoadLoseNoRequest() throws {
        let database = try FaultDatabase.fresh()
        let pair = [try TestCA("even"), try TestCA("odd")]
        let live = try TestCA("rotating")
        defer { (pair + [live]).forEach { $0.remove() } }
        // The clients trust both CAs: every reload swaps the certificate for the other one.
        let bundle = live.directory.appendingPathComponent("both.pem")
        let cas = try pair.map { try Data(contentsOf: URL(fileURLWithPath: $0.caFile)) }
        try (cas[0] + cas[1]).write(to: bundle)
        func install(_ ca: TestCA) throws {
            try Data(contentsOf: URL(fileURLWithPath: ca.key)).write(to: URL(fileURLWithPath: live.key))
            try Data(contentsOf: URL(fileURLWithPath: ca.certificate)).write(to: URL(fileURLWithPath: live.certificate))
        }
        try install(pair[0])
        let traffic = AcknowledgedTraffic(database: database, installs: 200, seed: 41)
        let server = try ServeProcess(
            databaseURL: database.url,
            arguments: ["--tls-cert", live.certificate, "--tls-key", live.key, "--threads", "4"])
        // libmicrohttpd names its threads: 4 per running daemon.
        let workers = {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/task")) ?? []
            return tasks.filter {
                (try? String(contentsOfFile: "/proc/\(server.pid)/task/\($0)/comm", encoding: .utf8))?.hasPrefix(
                    "MHD-worker") == true
            }.count
        }
        let run = traffic.post(
            to: "https://127.0.0.1:\(server.port)", clients: 6,
            policy: RetryPolicy(maxAttempts: 5, baseDelay: 0.05, maxDelay: 0.2, maxRetryAfter: 1),
            caFile: bundle.path)
        var reloads = 0
        while !run.isFinished {
            reloads += 1
            try install(pair[reloads % 2])
            server.send(SIGHUP)
            waitUntil { server.logText.components(separatedBy: "tls certificate reloaded").count == reloads + 1 }
            usleep(150_000)
        }
        let summary = try run.value()
        // Each retired daemon is stopped once its connections are gone: its threads go away.
        let ended = ContinuousClock.now
        while workers() != 4, ContinuousClock.now - ended < .seconds(60) { usleep(50_000) }
        let retired = ContinuousClock.now - ended
        #expect(workers() == 4, "retired daemons still running after \(retired)")
        server.send(SIGTERM)
        #expect(server.waitForExit() == (true, 0))
        #expect(reloads >= 3, "the traffic ended before the reloads began")
        #expect(
            summary.gaveUp == 0 && summary.answered200 == traffic.batchCount, "\(summary.statuses) \(summary.retries)")
        let audit = try database.audit(summary.acknowledged)
        #expect(audit == (0, 0))
        FaultFigures.logger.info(
            "fault figures",
            [
                "test": "tls reloads under load", "reloads": "\(reloads)", "batches": "\(traffic.batchCount)",
                "acknowledged_events": "\(summary.acknowledged.count)", "retries": "\(summary.retries)",
                "missing": "\(audit.missing)",
                "retired_stopped_ms": "\(retired.milliseconds)",
            ])
    }

    @Test func aCertificateOrKeyThatCannotBeUsedStartsNothing() throws {
        let database = try FaultDatabase.fresh()
        let ca = try TestCA("refused"), other = try TestCA("other")
        defer { [ca, other].forEach { $0.remove() } }
        let garbled = ca.directory.appendingPathComponent("garbled.pem")
        try Data("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n".utf8).write(
            to: garbled)
        let missing = ca.directory.appendingPathComponent("missing.key").path
        let cases: [(String, [String], String)] = [
            ("certificate without key", ["--tls-cert", ca.certificate], "--tls-cert needs --tls-key"),
            ("key without certificate", ["--tls-key", ca.key], "--tls-key needs --tls-cert"),
            (
                "missing key file", ["--tls-cert", ca.certificate, "--tls-key", missing],
                "cannot read the TLS key file \(missing): No such file"
            ),
            ("key given as certificate", ["--tls-cert", ca.key, "--tls-key", ca.key], "holds no PEM certificate"),
            (
                "certificate given as key", ["--tls-cert", ca.certificate, "--tls-key", ca.certificate],
                "holds no unencrypted PEM private key"
            ),
            ("mismatched pair", ["--tls-cert", ca.certificate, "--tls-key", other.key], "do not match"),
            ("garbled certificate", ["--tls-cert", garbled.path, "--tls-key", ca.key], "were refused"),
        ]
        for (name, arguments, message) in cases {
            let refused = try TLSTools.refusedServe(arguments, databaseURL: database.url)
            #expect(refused.status == 64, "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains(message), "\(name): \(refused.stderr)")
            #expect(!refused.portBound, "\(name)")
        }
    }

    @Test func theAdminListenerServesOperationsAndThePublicOneAnswers404ForThem() throws {
        let database = try FaultDatabase.fresh()
        let ca = try TestCA("admin")
        defer { ca.remove() }
        let port = try #require(ServeProcess.freePort())
        let adminPort = try #require(ServeProcess.freePort(except: [port]))
        let server = try ServeProcess(
            databaseURL: database.url, port: port,
            arguments: ["--tls-cert", ca.certificate, "--tls-key", ca.key, "--admin-listen", "127.0.0.1:\(adminPort)"])
        let url = "https://127.0.0.1:\(server.port)"
        let batch = Self.telemetry(2)
        let client = try HTTPClient(baseURL: url, timeout: 30, caFile: ca.caFile)
        #expect(
            try client.post(
                path: "/v1/telemetry", body: batch.body, contentType: "application/json", bearer: database.telemetryKey
            ).status == 200)

        func admin(_ method: String, _ path: String, body: [UInt8] = []) throws -> RawReply {
            let connection = try RawHTTPConnection(port: adminPort)
            connection.write(method == "GET" ? RawRequest.make("GET", path) : Self.post(database, body, path: path))
            return try connection.readReply()
        }
        let metrics = try admin("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(
            metrics.text.contains("pushledger_http_requests_total{endpoint=\"/v1/telemetry\",status=\"200\"} 1"),
            "\(metrics.text)")
        #expect(try admin("GET", "/healthz").status == 200)
        waitUntil { (try? admin("GET", "/readyz").status) == 200 }
        // The ingest API is not on the admin address; the operations endpoints are not public.
        #expect(try admin("POST", "/v1/telemetry", body: Self.telemetry(1).body).status == 404)
        for path in ["/metrics", "/healthz", "/readyz"] {
            #expect(try TLSTools.status("\(url)\(path)", ["--cacert", ca.caFile]) == 404, "\(path)")
        }

        server.send(SIGTERM)
        #expect(server.waitForExit() == (true, 0))
        #expect(try database.audit(batch.ids) == (0, 0))
        #expect(try database.count("select count(*)::int8 from event_ids") == 2)
    }
}

extension Duration {
    /// Whole milliseconds, for the figures logged.
    fileprivate var milliseconds: Int64 { components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000 }
}
