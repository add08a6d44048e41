import TestSupport

/// One sample of a running server's `/metrics`, `name{labels}` as written there, read from
/// `port`: the admin listener's where reading must not take one of the public listener's
/// connections. Nil when the server did not answer or has no such sample.
func metricSample(_ sample: String, port: UInt16) -> Double? {
    guard let connection = try? RawHTTPConnection(port: port), let reply = try? connection.get("/metrics") else {
        return nil
    }
    return reply.text.split(separator: "\n").first { $0.hasPrefix(sample + " ") }.flatMap {
        Double($0.dropFirst(sample.count + 1))
    }
}

/// Connections the server closed at a deadline (`deadline`) or shed at its limit (`shed`).
func slowConnectionsClosed(_ reason: String, port: UInt16) -> Int? {
    metricSample("pushledger_http_slow_connections_closed{reason=\"\(reason)\"}", port: port).map { Int($0) }
}
