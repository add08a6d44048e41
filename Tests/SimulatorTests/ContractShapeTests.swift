import Foundation
import Testing

@testable import Simulator

/// Every generated body has the shape of docs/contract.md (checked field by field with
/// JSONSerialization, independent of the byte-level encoders).
@Suite("Generated bodies follow the v1 contract")
struct ContractShapeTests {
    static let output = Simulation.generate(Fixtures.config(installs: 400, seed: 21))
    static let endMs = Fixtures.config().endMs

    private func isUUID(_ value: Any?) -> Bool {
        (value as? String).flatMap(UUID.init(uuidString:)) != nil
            && (value as! String) == (value as! String).lowercased()
    }
    private func isSlug(_ value: Any?) -> Bool {
        guard let s = value as? String, (1...64).contains(s.utf8.count) else { return false }
        return s.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
    }
    private func one(of values: [String], _ value: Any?) -> Bool { (value as? String).map(values.contains) ?? false }

    @Test func telemetryBatches() throws {
        let settings = ["enabled", "disabled", "not_supported"]
        var types = Set<String>()
        for batch in Self.output.telemetry {
            #expect(batch.body.count <= 1 << 20)
            let body = try Fixtures.object(batch.body)
            #expect(body["app_id"] as? String == "com.example.shop")
            #expect(isUUID(body["installation_id"]))
            let platform = body["platform"] as? String
            #expect(one(of: ["ios", "android"], platform))
            #expect(body["app_version"] is String && body["os_version"] is String)
            if platform == "android" { #expect(body["sdk_int"] is Int) }
            let sentAt = try Fixtures.ms(body["sent_at"])
            // the batch's stamped offset points at the sent_at text
            #expect(
                Array(batch.body[batch.sentAtOffset..<(batch.sentAtOffset + 24)])
                    == Array((body["sent_at"] as! String).utf8))
            let events = try #require(body["events"] as? [[String: Any]])
            #expect(!events.isEmpty && events.count <= 2_000 && events.count == batch.eventCount)
            for e in events {
                #expect(isUUID(e["event_id"]))
                let corrected = Self.endMs - (sentAt - (try Fixtures.ms(e["at"])))
                #expect(corrected < Self.endMs && corrected > Self.endMs - 30 * SimTime.msPerDay)
                let type = try #require(e["type"] as? String)
                types.insert(type)
                switch type {
                case "notification_settings":
                    if platform == "ios" {
                        #expect(
                            one(
                                of: ["not_determined", "denied", "authorized", "provisional", "ephemeral"],
                                e["authorization_status"]))
                        for name in [
                            "alert_setting", "sound_setting", "badge_setting", "lock_screen_setting",
                            "notification_center_setting",
                        ] {
                            #expect(one(of: settings, e[name]))
                        }
                        #expect(one(of: ["none", "banner", "alert"], e["alert_style"]))
                    } else {
                        #expect(e["notifications_enabled"] is Bool)
                        #expect(one(of: ["granted", "denied", "not_required"], e["post_notifications"]))
                        for channel in try #require(e["channels"] as? [[String: Any]]) {
                            #expect(
                                channel["id"] is String && channel["group"] is String
                                    && channel["group_blocked"] is Bool)
                            #expect([-1_000, 0, 1, 2, 3, 4, 5].contains(channel["importance"] as? Int ?? 99))
                        }
                    }
                case "permission_prompt":
                    #expect(isSlug(e["placement"]))
                    #expect(one(of: ["system", "primer"], e["prompt"]))
                    #expect(
                        one(of: ["granted", "provisional", "denied", "dismissed", "already_determined"], e["result"]))
                case "experiment_exposure":
                    #expect(isSlug(e["experiment"]) && isSlug(e["variant"]))
                case "push_token":
                    let token = try #require(e["token"] as? String)
                    if platform == "ios" {
                        #expect(e["provider"] as? String == "apns")
                        #expect(
                            token.count % 2 == 0 && (64...200).contains(token.count) && token.allSatisfy(\.isHexDigit))
                        #expect(one(of: ["production", "sandbox"], e["environment"]))
                    } else {
                        #expect(e["provider"] as? String == "fcm")
                        #expect(
                            (1...4_096).contains(token.utf8.count) && token.utf8.allSatisfy { (32...126).contains($0) })
                    }
                case "notification_received":
                    #expect(isUUID(e["notification_id"]))
                    if let displayed = e["displayed"] { #expect(displayed is Bool) }
                case "notification_opened":
                    #expect(isUUID(e["notification_id"]) && e["action"] is String && e["link"] is String)
                    #expect(one(of: ["target", "fallback", "rejected"], e["landed"]))
                default:
                    Issue.record("unknown type \(type)")
                }
            }
        }
        #expect(types.count == 6)
    }

    @Test func sendBatches() throws {
        var formats = Set<String>()
        var reasons = Set<String>()
        var tokenOnly = 0
        var last: Int64 = .min
        for batch in Self.output.sends {
            formats.insert(batch.contentType)
            let sends = try Fixtures.sends(batch)
            #expect(sends.count == batch.eventCount && sends.count <= 2_000)
            for s in sends {
                #expect(isUUID(s["event_id"]) && isUUID(s["notification_id"]))
                #expect(s["app_id"] as? String == "com.example.shop")
                #expect(one(of: ["apns", "fcm"], s["provider"]))
                #expect(s["token"] is String && s["channel"] is String && s["campaign"] is String)
                let sentAt = try Fixtures.ms(s["sent_at"])
                #expect(sentAt < Self.endMs && sentAt >= Fixtures.startMs)
                if !batch.isRetry {
                    #expect(sentAt >= last)
                    last = sentAt
                }
                #expect(s["status"] is Int)
                if let reason = s["reason"] as? String {
                    reasons.insert(reason)
                } else {
                    #expect(s["reason"] is NSNull)
                }
                if s["installation_id"] == nil { tokenOnly += 1 } else { #expect(isUUID(s["installation_id"])) }
                if s["status"] as? Int == 410 {
                    _ = try Fixtures.ms(s["unregistered_at"])
                } else {
                    #expect(s["unregistered_at"] is NSNull)
                }
            }
        }
        #expect(formats == ["application/json", "application/x-ndjson"])
        #expect(
            reasons.isSuperset(of: [
                "Unregistered", "UNREGISTERED", "BadDeviceToken", "DeviceTokenNotForTopic", "TooManyRequests",
                "QUOTA_EXCEEDED",
            ]))
        #expect(tokenOnly > 0)
    }

    @Test func retriedBatchesRepeatEarlierOnes() {
        let retries = Self.output.telemetry.enumerated().filter(\.element.isRetry)
        #expect(!retries.isEmpty)
        for (i, batch) in retries { #expect(Self.output.telemetry[i - 1].body == batch.body) }
        #expect(
            Self.output.truth.duplicateEventsPosted
                == (Self.output.telemetry + []).filter(\.isRetry).reduce(0) { $0 + $1.eventCount }
                + Self.output.sends.filter(\.isRetry).reduce(0) { $0 + $1.eventCount })
    }

    @Test func stampingSetsTheDeviceClockAtPosting() throws {
        let skewed = try #require(Self.output.telemetry.first { $0.skewMs != 0 })
        let now: Int64 = 1_800_000_000_123
        let body = try Fixtures.object(skewed.stamped(nowMs: now))
        #expect(try Fixtures.ms(body["sent_at"]) == now + skewed.skewMs)
        #expect(skewed.stamped(nowMs: now).count == skewed.body.count)
    }

    @Test func timesFormatLikeFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var r = SimRandom(seed: 9)
        for _ in 0..<2_000 {
            let ms = r.below(4_102_444_800_000)  // 1970 … 2100
            #expect(SimTime.rfc3339(ms) == formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1_000)))
        }
    }
}

@Suite("Truth file")
struct TruthFileTests {
    @Test func truthJSONCarriesTheCounts() throws {
        let truth = ContractShapeTests.output.truth
        let object = try Fixtures.object(truth.json())
        #expect(object["as_of"] as? String == SimTime.rfc3339(truth.window.asOf))
        let outcomes = try #require(object["outcomes"] as? [[String: Any]])
        let byDay = try #require(object["outcomes_by_day"] as? [[String: Any]])
        let sum = { (rows: [[String: Any]]) in rows.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } }
        #expect(sum(outcomes) == sum(byDay) && sum(byDay) == truth.outcomesByDay.reduce(0) { $0 + $1.count })
        let opened = outcomes.filter {
            $0["outcome"] as? String == "opened" && $0["channel"] as? String == "orders"
                && $0["platform"] as? String == "ios"
        }
        #expect(sum(opened) == truth.count(.opened, channel: "orders", platform: .ios))
        let cohorts = try #require(object["cohorts"] as? [[String: Any]])
        #expect(cohorts.map { $0["variant"] as? String } == truth.cohorts.map(\.variant))
        #expect(cohorts.first?["reach"] as? Int == truth.cohorts.first?.reach)
        #expect(object["token_invalid"] as? Int == truth.tokenInvalid)
        #expect((object["rejections"] as? [[String: Any]])?.count == truth.rejections.count)
    }
}
