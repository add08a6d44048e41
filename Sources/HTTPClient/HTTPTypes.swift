import Foundation
import PushLedgerSupport

/// One HTTP response as received.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header fields in arrival order; names as sent.
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first field with this name (ASCII case-insensitive, as HTTP field names are).
    public func header(_ name: String) -> String? {
        headers.first { field in
            field.name.utf8.elementsEqual(name.utf8) { a, b in
                a == b || (a ^ b == 32 && (97...122).contains(a | 32))
            }
        }?.value
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A failure to exchange a request: a safe `description`, details for logs in `detail`.
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case invalidURL = "invalid URL", resolve = "cannot resolve host", connect = "cannot connect"
        case timeout = "timed out", io = "connection failed", malformedResponse = "malformed response"
        case untrusted = "server certificate not trusted"
    }
    public var kind: Kind
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "ingest client: \(kind.rawValue)" }

    /// Whether a retry may succeed (everything but a bad URL or an untrusted certificate).
    public var isRetryable: Bool { kind != .invalidURL && kind != .untrusted }
}

/// When and how often `postWithRetry` tries again (the one backoff rule, shared with the SDK).
public typealias RetryPolicy = PushLedgerSupport.RetryPolicy
