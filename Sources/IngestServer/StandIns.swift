// STAND-INS — delete this file when main has SHA256 (stats), Gzip (lead) and the validators and
// IngestResponse (contract). Same signatures as the real ones; behaviour only as far as the
// server's tests need before the merge.
import Foundation
import PushLedgerCore

enum SHA256 {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        let k: [UInt32] = [
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
            0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
            0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
            0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
            0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
            0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
        ]
        var data = message + [0x80]
        while data.count % 64 != 56 { data.append(0) }
        let bits = UInt64(message.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        for block in stride(from: 0, to: data.count, by: 64) {
            var w = [UInt32](repeating: 0, count: 64)
            for i in 0..<16 {
                w[i] = (0..<4).reduce(0) { ($0 << 8) | UInt32(data[block + i * 4 + $1]) }
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
        }
        return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
    }
}

enum Gzip {
    struct StandInError: Error {}
    static func decompress(_ bytes: [UInt8], limit: Int) throws -> [UInt8] { throw StandInError() }
}

enum IngestResponse {
    static func accepted(_ outcome: WriteOutcome, rejected: [Rejection]) -> [UInt8] {
        let list = rejected.map { r -> [String: Any] in
            ["index": r.index, "event_id": r.eventID as Any? ?? NSNull(), "error": r.code.rawValue, "message": r.message]
        }
        let object: [String: Any] = ["accepted": outcome.accepted, "duplicates": outcome.duplicates, "rejected": list]
        return Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
    static func error(code: String, message: String) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: ["error": code, "message": message])) ?? Data())
    }
}

private func standInEvents(_ objects: [Any], limits: IngestLimits, check: ([String: Any]) -> RejectionCode?) throws -> ([Int], [Rejection]) {
    guard objects.count <= limits.maxEventsPerRequest else {
        throw EnvelopeError(status: 413, code: "too_many_events", message: "more than \(limits.maxEventsPerRequest) events")
    }
    var valid: [Int] = []
    var rejected: [Rejection] = []
    for (index, object) in objects.enumerated() {
        let event = object as? [String: Any] ?? [:]
        let raw = String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
        let code = check(event)
            ?? (UUID(uuidString: event["event_id"] as? String ?? "") == nil ? .missingField : nil)
        if let code {
            rejected.append(Rejection(index: index, eventID: event["event_id"] as? String, code: code, message: code.rawValue, rawJSON: raw))
        } else {
            valid.append(index)
        }
    }
    return (valid, rejected)
}

private func standInJSON(_ body: [UInt8]) throws -> Any {
    guard let value = try? JSONSerialization.jsonObject(with: Data(body)) else {
        throw EnvelopeError(status: 400, code: "invalid_json", message: "body is not JSON")
    }
    return value
}

enum TelemetryValidator {
    static func validate(body: [UInt8], keyAppID: String, receivedAt: Date, limits: IngestLimits) throws(EnvelopeError) -> ValidatedTelemetry {
        let json: Any
        do { json = try standInJSON(body) } catch { throw error as! EnvelopeError }
        guard let object = json as? [String: Any], let app = object["app_id"] as? String,
              let installation = UUID(uuidString: object["installation_id"] as? String ?? ""),
              let platform = Platform(rawValue: object["platform"] as? String ?? ""), let events = object["events"] as? [Any]
        else { throw EnvelopeError(status: 400, code: "invalid_envelope", message: "envelope invalid") }
        guard app == keyAppID else { throw EnvelopeError(status: 403, code: "app_mismatch", message: "app_id is not the key's app") }
        let known = ["notification_settings", "permission_prompt", "experiment_exposure", "push_token", "notification_received", "notification_opened"]
        let (valid, rejected): ([Int], [Rejection])
        do {
            (valid, rejected) = try standInEvents(events, limits: limits) { known.contains($0["type"] as? String ?? "") ? nil : .unknownType }
        } catch { throw error as! EnvelopeError }
        let parsed = valid.map { index in
            let event = events[index] as! [String: Any]
            return TelemetryEvent(index: index, eventID: UUID(uuidString: event["event_id"] as! String)!, at: receivedAt, occurredAt: receivedAt,
                                  payload: .experimentExposure(ExperimentExposure(experiment: "x", variant: "y")))
        }
        return ValidatedTelemetry(envelope: TelemetryEnvelope(appID: app, installationID: installation, platform: platform), events: parsed, rejections: rejected)
    }
}

enum SendsValidator {
    static func validate(body: [UInt8], format: SendsFormat, keyAppID: String, receivedAt: Date, limits: IngestLimits) throws(EnvelopeError) -> ValidatedSends {
        var objects: [Any] = []
        do {
            switch format {
            case .json:
                guard let sends = (try standInJSON(body) as? [String: Any])?["sends"] as? [Any] else {
                    throw EnvelopeError(status: 400, code: "invalid_envelope", message: "no sends")
                }
                objects = sends
            case .ndjson:
                for line in body.split(separator: 10) where !line.isEmpty { objects.append(try standInJSON(Array(line))) }
            }
        } catch { throw error as! EnvelopeError }
        let (valid, rejected): ([Int], [Rejection])
        do {
            (valid, rejected) = try standInEvents(objects, limits: limits) { ($0["app_id"] as? String) == keyAppID ? nil : .appMismatch }
        } catch { throw error as! EnvelopeError }
        let sends = valid.map { index in
            let send = objects[index] as! [String: Any]
            return SendResult(index: index, eventID: UUID(uuidString: send["event_id"] as! String)!, notificationID: UUID(), appID: keyAppID,
                              provider: .apns, token: "00", channel: "c", sentAt: receivedAt, status: 200)
        }
        return ValidatedSends(sends: sends, rejections: rejected)
    }
}
