import Foundation
import HTTPClient

/// Posts one JSON body per transition to a webhook: a Slack-compatible `text` plus the
/// structured fields of `alert_transitions`. Network errors, 5xx and 429 are retried with
/// exponential backoff; other statuses fail at once. Every failure is returned, never dropped.
public struct AlertWebhook: Sendable {
    public let url: String
    let client: HTTPClient
    /// Bound on each attempt (connect, send, and waiting for the status line).
    public var timeout: Duration
    /// Attempts per transition, the first included.
    public var attempts: Int
    /// Pause before the second attempt; doubled before each later one.
    public var backoff: Duration

    /// Throws `invalidArgument` unless `url` is `http://host[:port][/path]`.
    public init(
        url: String, timeout: Duration = .seconds(10), attempts: Int = 3, backoff: Duration = .seconds(1)
    ) throws(AlertError) {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard url.hasPrefix("http://"), let client = try? HTTPClient(baseURL: url, timeout: seconds) else {
            throw AlertError(
                .invalidArgument,
                "webhook URL must be http://host[:port][/path] (put a TLS relay in front of https endpoints)")
        }
        self.url = url
        self.client = client
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.backoff = backoff
    }

    /// Posts every transition; returns one error per transition that could not be delivered.
    public func post(_ transitions: [AlertTransition]) -> [AlertError] {
        transitions.compactMap { transition in
            var record = AlertRecord(transition)
            record.includeSlackText = true
            return deliver(
                Array(AlertRecord.json(record).utf8),
                what: "\(transition.rule) \(transition.state.rawValue) #\(transition.id)")
        }
    }

    /// Delivers one body; nil on a 2xx.
    func deliver(_ body: [UInt8], what: String) -> AlertError? {
        var pause = backoff
        var last = ""
        for attempt in 1...attempts {
            if attempt > 1 {
                Thread.sleep(
                    forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18)
                pause *= 2
            }
            do {
                let code = try client.post(
                    path: client.basePath.isEmpty ? "/" : "", body: body, contentType: "application/json"
                ).status
                if (200...299).contains(code) { return nil }
                last = "HTTP \(code)"
                guard code >= 500 || code == 429 else { break }  // a status that retrying cannot fix
            } catch {
                client.close()
                last = "\(error.kind.rawValue): \(error.detail)"
            }
        }
        return AlertError(
            .webhook, "webhook delivery of \(what) to \(client.host):\(client.port) failed: \(last)",
            detail: "url \(url), \(attempts) attempt(s)")
    }
}
