import Foundation
import Postgres
import PushLedgerContract
import TestSupport
import Testing

/// Erasure of what the failed-event store holds, through the real server: a device back after
/// 40 days offline has its whole journal rejected `too_old`; its sender's late sends are
/// rejected too, and a broken batch refused whole. `pushledger erase` removes every one of
/// those rows by the installation and token they were stored with, and nothing of another
/// installation of the app or of another app holding the same installation id; erasing the
/// token `{` removes that token's rows alone.
@Suite("Erasure of rejected events")
struct RejectedErasureTests {
    @Test func erasureRemovesTheInstallationsRejectedEventsAndNothingElse() throws {
        let database = try FaultDatabase.fresh()
        let otherAppKey = try FaultDatabase.createKey(app: FaultDatabase.otherApp, scope: "telemetry", database.url)
        let server = try ServeProcess(databaseURL: database.url)
        let (victim, neighbour) = (UUID().uuidString.lowercased(), UUID().uuidString.lowercased())
        let victimToken = "fcm-victim-" + UUID().uuidString, neighbourToken = "fcm-neighbour-" + UUID().uuidString
        let longAgo = Fixtures.time(Date().addingTimeInterval(-40 * 86_400)), now = Fixtures.time()

        func post(_ path: String, _ key: String, _ body: String) throws -> RawReply {
            let connection = try RawHTTPConnection(port: server.port)
            connection.write(
                RawRequest.make(
                    "POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(key)")],
                    body: Array(body.utf8)))
            return try connection.readReply()
        }
        func journal(app: String, installation: String, token: String, at: String) -> String {
            let events =
                (0..<5).map { _ in
                    #"{"event_id":"\#(UUID().uuidString.lowercased())","type":"experiment_exposure","at":"\#(at)","#
                        + #""experiment":"e","variant":"v"}"#
                } + [
                    #"{"event_id":"\#(UUID().uuidString.lowercased())","type":"push_token","at":"\#(at)","#
                        + #""provider":"fcm","token":"\#(token)"}"#
                ]
            return
                #"{"app_id":"\#(app)","installation_id":"\#(installation)","platform":"android","sent_at":"\#(now)","#
                + #""events":[\#(events.joined(separator: ","))]}"#
        }
        func lateSend(installation: String?, token: String) -> String {
            let id = installation.map { ",\"installation_id\":\"\($0)\"" } ?? ""
            return
                #"{"sends":[{"event_id":"\#(UUID().uuidString.lowercased())","#
                + #""notification_id":"\#(UUID().uuidString.lowercased())","#
                + #""app_id":"\#(FaultDatabase.app)","provider":"fcm","token":"\#(token)","channel":"orders","#
                + #""sent_at":"\#(longAgo)","status":200\#(id)}]}"#
        }

        for (installation, token) in [(victim, victimToken), (neighbour, neighbourToken)] {
            // The journal, all too_old (sent_at is the device's now: 40 days of skew-corrected age).
            let reply = try post(
                "/v1/telemetry", database.telemetryKey,
                journal(app: FaultDatabase.app, installation: installation, token: token, at: longAgo))
            #expect(reply.status == 200)
            #expect((reply.json?["rejected"] as? [Any])?.count == 6)
            #expect(
                try post("/v1/sends", database.sendsKey, lateSend(installation: installation, token: token)).status
                    == 200)
            #expect(try post("/v1/sends", database.sendsKey, lateSend(installation: nil, token: token)).status == 200)
            // A batch refused whole (sdk_int out of range): stored with the installation it named.
            let refused = journal(app: FaultDatabase.app, installation: installation, token: token, at: now)
                .replacingOccurrences(
                    of: "\"sent_at\"", with: "\"sdk_int\":0,\"sent_at\"")
            #expect(try post("/v1/telemetry", database.telemetryKey, refused).status == 400)
        }
        // The same installation id in another app, and a token `{` of the neighbour.
        #expect(
            try post(
                "/v1/telemetry", otherAppKey,
                journal(app: FaultDatabase.otherApp, installation: victim, token: victimToken, at: longAgo)
            ).status == 200)
        #expect(try post("/v1/sends", database.sendsKey, lateSend(installation: nil, token: "{")).status == 200)

        let perInstallation = 6 + 2 + 1
        func rows(_ filter: String) throws -> Int {
            try database.count(SQL(unsafeRaw: "select count(*)::int8 from failed_events where " + filter))
        }
        let app = "app_id = '\(FaultDatabase.app)'", other = "app_id = '\(FaultDatabase.otherApp)'"
        // The send without installation is erased by its token.
        #expect(try rows("\(app) and installation_id = '\(victim)'") == perInstallation - 1)
        #expect(try rows("\(app) and (installation_id = '\(victim)' or token = '\(victimToken)')") == perInstallation)
        let neighbourRows = try rows("\(app) and (installation_id = '\(neighbour)' or token = '\(neighbourToken)')")
        #expect(neighbourRows == perInstallation)
        #expect(try rows(other) == 6)

        let env = ["DATABASE_URL": database.url]
        let braces = try CommandRunner.run(
            ["erase", "--app", FaultDatabase.app, "--token", "{", "--format", "csv"], environment: env)
        #expect(braces.status == 0, "\(braces.stderr)")
        #expect(braces.stdout.contains("failed_events,1"))
        #expect(try rows("true") == 2 * perInstallation + 6)

        let erased = try CommandRunner.run(
            ["erase", "--app", FaultDatabase.app, "--installation", victim, "--format", "csv"], environment: env)
        #expect(erased.status == 0, "\(erased.stderr)")
        #expect(erased.stdout.contains("failed_events,\(perInstallation)"))
        #expect(
            try rows(
                """
                \(app) and (installation_id = '\(victim)' or token = '\(victimToken)' or raw_json ilike \
                '%\(victim)%' or raw_json like '%\(victimToken)%')
                """
            ) == 0)
        #expect(
            try rows("\(app) and (installation_id = '\(neighbour)' or token = '\(neighbourToken)')") == neighbourRows)
        #expect(try rows(other) == 6)
        // No table of the app holds the victim's token any more (the other app's rows name only the id... and its own
        // token copy).
        let dump = try PostgresDump.run(["--data-only", "--exclude-table=failed_events"], url: database.url)
        #expect(!dump.contains(victimToken))
    }
}
