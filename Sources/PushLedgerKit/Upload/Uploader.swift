import Foundation
import Gzip
import PushLedgerSupport

/// Events of one request: consecutive journal entries recorded under one context.
struct Batch: Sendable {
    var context: JournalContext
    var entries: [JournalEntry] = []
    var events: [JSONValue] = []
    var bytes = 0
}

/// What the server's answer means for a batch's journal entries.
enum DeliveryOutcome: Sendable, Equatable {
    /// 200: every event is answered for (stored, duplicate or rejected); remove them all.
    case stored(accepted: Int, duplicates: Int, rejected: [RejectedEvent])
    /// PushLedger's own 400: the request was refused as a whole; the events will never be accepted as sent.
    case refused([RejectedEvent])
    /// 413: smaller requests may pass.
    case tooLarge(code: String, message: String)
    /// Keep the events; `retryAfter` is the server's hint.
    case failed(FlushFailure, retryable: Bool, retryAfter: String?)
}

/// Posts batches to `/v1/telemetry`, gzipped, `sent_at` stamped per attempt, retrying what may
/// succeed later with the shared backoff rule.
struct Uploader: Sendable {
    let configuration: PushLedger.Configuration
    let installationID: UUID
    /// Injected so tests need not sleep through real backoffs.
    var sleep: @Sendable (TimeInterval) async -> Void = { seconds in
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
    }

    var url: URL { configuration.endpoint.appendingPathComponent("v1").appendingPathComponent("telemetry") }

    /// The request body for `batch`, stamped with `sentAt` (the device clock now).
    func body(_ batch: Batch, sentAt: Date) -> [UInt8] {
        let envelope = TelemetryEnvelope(
            appID: configuration.appID, installationID: installationID, platform: configuration.platform,
            appVersion: batch.context.appVersion, osVersion: batch.context.osVersion, sdkInt: batch.context.sdkInt,
            sentAt: sentAt)
        return envelope.jsonValue(events: batch.events).serialized()
    }

    /// One batch, with retries: what the last answer means.
    func deliver(_ batch: Batch) async -> DeliveryOutcome {
        var attempt = 1
        while true {
            let outcome = await attemptOnce(batch)
            guard case .failed(_, true, let retryAfter) = outcome, attempt < configuration.retry.maxAttempts else {
                return outcome
            }
            let delay = configuration.retry.delay(
                afterAttempt: attempt, retryAfter: retryAfter, random: Double.random(in: 0...1))
            configuration.logger.info(
                "upload retry", ["attempt": attempt, "delay_s": String(format: "%.2f", delay), "outcome": "\(outcome)"])
            await sleep(delay)
            attempt += 1
        }
    }

    func attemptOnce(_ batch: Batch) async -> DeliveryOutcome {
        let request = TransportRequest(
            url: url,
            headers: [
                "Authorization": "Bearer \(configuration.telemetryKey)", "Content-Type": "application/json",
                "Content-Encoding": "gzip",
            ],
            body: Data(Gzip.compress(body(batch, sentAt: Date()))), timeout: configuration.requestTimeout)
        let response: TransportResponse
        do {
            response = try await configuration.transport.send(request)
        } catch {
            return .failed(.network(String(describing: error)), retryable: true, retryAfter: nil)
        }
        return Self.interpret(response, batch: batch)
    }

    /// The 400 codes with which PushLedger refuses a request whole (docs/contract.md, Responses): the
    /// only answers that may drop events. Tests/Fixtures/upload-answers.json lists the same codes.
    static let refusalCodes = ["invalid_json", "invalid_gzip", "missing_field", "invalid_field", "unstorable"]

    /// The answer's error code when it is PushLedger's own JSON error: `Content-Type`
    /// `application/json` (parameters and case aside) and an object whose `error` and `message` are
    /// strings. A proxy's, firewall's or other service's answer is not, whatever its status.
    static func ownErrorCode(_ response: TransportResponse) -> String? {
        guard let type = response.headers["content-type"],
            type.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first?
                .trimmingCharacters(in: .whitespaces).lowercased() == "application/json",
            let answer = try? JSONParser.parseValue([UInt8](response.body)),
            answer["message"]?.stringValue != nil
        else { return nil }
        return answer["error"]?.stringValue
    }

    /// The contract's statuses (telemetry-v1.md, Responses) mapped to what the journal does. Only
    /// PushLedger's own answers drop events; Tests/Fixtures/upload-answers.json is the rule's table,
    /// which the Android SDK runs too.
    static func interpret(_ response: TransportResponse, batch: Batch) -> DeliveryOutcome {
        let answer = try? JSONParser.parseValue([UInt8](response.body))
        let code = answer?["error"]?.stringValue ?? "http_\(response.status)"
        let message = answer?["message"]?.stringValue ?? ""
        let own = ownErrorCode(response)
        switch response.status {
        case 200:
            guard let accepted = answer?["accepted"]?.numberValue?.int64Value,
                let duplicates = answer?["duplicates"]?.numberValue?.int64Value,
                let rejected = answer?["rejected"]?.arrayValue
            else {
                return .failed(.unexpected(status: 200, code: "unreadable_answer"), retryable: false, retryAfter: nil)
            }
            let rejections = rejected.map { item -> RejectedEvent in
                let index = item["index"]?.numberValue?.int64Value.map(Int.init)
                let id =
                    item["event_id"]?.stringValue.flatMap(ContractFormat.uuid)
                    ?? index.flatMap { batch.entries.indices.contains($0) ? batch.entries[$0].eventID : nil }
                return RejectedEvent(
                    eventID: id, code: item["error"]?.stringValue ?? "unknown",
                    message: item["message"]?.stringValue ?? "")
            }
            return .stored(accepted: Int(accepted), duplicates: Int(duplicates), rejected: rejections)
        case 400 where own.map(refusalCodes.contains) == true:
            return .refused(batch.entries.map { RejectedEvent(eventID: $0.eventID, code: code, message: message) })
        case 413 where batch.entries.count <= 1 && own == nil:
            // A single event is dropped on 413 only when PushLedger says so: a proxy's smaller body
            // limit must not lose it.
            return .failed(.unexpected(status: 413, code: code), retryable: false, retryAfter: nil)
        case 413:
            return .tooLarge(code: code, message: message)
        case 401, 403:
            return .failed(.unauthorized(status: response.status, code: code), retryable: false, retryAfter: nil)
        case 400, 429, 500...599:
            // A 400 that is not PushLedger's own (a proxy, a firewall, a captive portal) is retried like a 5xx.
            return .failed(
                .unavailable(status: response.status, code: code), retryable: true,
                retryAfter: response.headers["retry-after"])
        default:
            return .failed(.unexpected(status: response.status, code: code), retryable: false, retryAfter: nil)
        }
    }
}

extension JournalEntry {
    /// The event id its name carries.
    var eventID: UUID? {
        let parts = name.dropLast(".event".count).split(separator: "-", maxSplits: 1)
        return parts.count == 2 ? ContractFormat.uuid(String(parts[1])) : nil
    }
}
