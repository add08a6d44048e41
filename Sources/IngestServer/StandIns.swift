// STAND-INS — delete this file when main has the validators and IngestResponse (contract). Same signatures as the real ones; behaviour only as far as the
// server's tests need before the merge.
import Foundation
import PushLedgerCore

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
