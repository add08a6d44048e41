import Foundation
import PushLedgerSupport

/// Longest accepted free strings, in UTF-8 bytes (all must also be non-empty and free of
/// U+0000, which Postgres `text` cannot hold). Generous for real values, small enough that one
/// field cannot dominate a row or a report label.
public enum FieldLimits {
    /// `app_id` (bundle id / package name; both platforms cap these well below 255).
    public static let appID = 255
    /// `channel`, `campaign`, Android channel `id` and `group`.
    public static let label = 255
    /// `action` (an action button identifier) and `reason`, `apns_id`.
    public static let identifier = 255
    /// `app_version`, `os_version`, `browser_version`.
    public static let version = 128
    /// `push_type`, a send's `environment`.
    public static let shortWord = 64
    /// `link` (URLs; browsers handle longer, but deep links are short).
    public static let link = 4096
}

/// Reads the fields of one JSON object and remembers the first missing and the first invalid
/// field, so the contract's order (every `missing_field` before any `invalid_field`) holds
/// whatever order the fields are read in. Readers return nil for absent or bad fields.
struct FieldReader {
    let object: JSONObject
    /// Prefix for field names in messages, e.g. `channels[2].`.
    let path: String
    private(set) var firstMissing: String?
    private(set) var firstInvalid: String?

    /// Duplicate keys are `invalid_field`: which copy counts would be a guess, and senders that
    /// emit them have a bug worth surfacing.
    init(_ object: JSONObject, path: String = "") {
        self.object = object
        self.path = path
        if let duplicate = object.firstDuplicateKey {
            firstInvalid =
                "invalid field \"\(path)\(StorageRules.printable(duplicate))\": the key occurs more than once"
        }
    }

    /// The first failure by the contract's order, if any.
    var failure: (code: RejectionCode, message: String)? {
        if let firstMissing { return (.missingField, firstMissing) }
        if let firstInvalid { return (.invalidField, firstInvalid) }
        return nil
    }

    var hasFailure: Bool { firstMissing != nil || firstInvalid != nil }

    mutating func noteMissing(_ key: String) {
        if firstMissing == nil { firstMissing = "missing field \"\(path)\(key)\"" }
    }

    mutating func noteInvalid(_ key: String, _ problem: String) {
        if firstInvalid == nil { firstInvalid = "invalid field \"\(path)\(key)\": \(problem)" }
    }

    /// Takes over a nested reader's failures (a channel entry's fields).
    mutating func merge(_ nested: FieldReader) {
        if firstMissing == nil { firstMissing = nested.firstMissing }
        if firstInvalid == nil { firstInvalid = nested.firstInvalid }
    }

    /// The core read: absent and `null` are the same (missing when required); otherwise
    /// `convert` either yields the value or the field is invalid with "expected …".
    mutating func read<T>(
        _ key: String, required: Bool, expected: @autoclosure () -> String, _ convert: (JSONValue) -> T?
    ) -> T? {
        guard let value = object[key], !value.isNull else {
            if required { noteMissing(key) }
            return nil
        }
        if let converted = convert(value) { return converted }
        if case .string = value {
            noteInvalid(key, "expected \(expected())")
        } else {
            noteInvalid(key, "expected \(expected()), got \(value.kindName)")
        }
        return nil
    }

    /// A non-empty string of at most `maxBytes` UTF-8 bytes without U+0000.
    mutating func string(_ key: String, required: Bool, maxBytes: Int) -> String? {
        guard let text = read(key, required: required, expected: "a string", { $0.stringValue }) else { return nil }
        if let problem = Self.stringProblem(text, maxBytes: maxBytes) {
            noteInvalid(key, problem)
            return nil
        }
        return text
    }

    /// Why a string cannot be stored (nil when it can).
    static func stringProblem(_ text: String, maxBytes: Int) -> String? {
        let count = text.utf8.count
        if count == 0 { return "expected a non-empty string" }
        if count > maxBytes { return "expected at most \(maxBytes) bytes, got \(count)" }
        if containsNUL(text) { return "must not contain U+0000" }
        return nil
    }

    /// memchr over the string's bytes: this runs for every stored string.
    static func containsNUL(_ text: String) -> Bool {
        let found = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, 0, bytes.count) != nil
        }
        return found ?? text.utf8.contains(0)
    }

    /// A provider's raw body: any string (empty included: APNs answers 200 with none) of at
    /// most `ProviderResponse.maxBodyBytes`, without U+0000.
    mutating func responseBody(_ key: String) -> String? {
        guard let text = read(key, required: false, expected: "a string", { $0.stringValue }) else { return nil }
        if text.isEmpty { return text }
        if let problem = Self.stringProblem(text, maxBytes: ProviderResponse.maxBodyBytes) {
            noteInvalid(key, problem)
            return nil
        }
        return text
    }

    mutating func uuid(_ key: String, required: Bool) -> UUID? {
        read(key, required: required, expected: "a UUID (8-4-4-4-12 hex)") {
            $0.stringValue.flatMap(ContractFormat.uuid)
        }
    }

    /// Microseconds since 1970, within `StorageRules.timeRange`.
    mutating func time(_ key: String, required: Bool) -> Int64? {
        let time = read(key, required: required, expected: "an RFC 3339 time such as 2026-11-30T10:00:05.120Z") {
            $0.stringValue.flatMap(RFC3339.microseconds)
        }
        if let time, let problem = StorageRules.timeProblem(time) {
            noteInvalid(key, problem)
            return nil
        }
        return time
    }

    mutating func bool(_ key: String, required: Bool) -> Bool? {
        read(key, required: required, expected: "true or false") { $0.boolValue }
    }

    /// An integer literal (no fraction or exponent) in `range`.
    mutating func int(_ key: String, required: Bool, in range: ClosedRange<Int64>) -> Int? {
        read(key, required: required, expected: "an integer from \(range.lowerBound) to \(range.upperBound)") { value in
            value.numberValue?.int64Value.flatMap { range.contains($0) ? Int($0) : nil }
        }
    }

    /// One of a contract enum's strings, exactly.
    mutating func choice<E: RawRepresentable & CaseIterable>(_ key: String, required: Bool) -> E?
    where E.RawValue == String {
        read(key, required: required, expected: "one of " + E.allCases.map(\.rawValue).joined(separator: ", ")) {
            $0.stringValue.flatMap(E.init(rawValue:))
        }
    }

    mutating func slug(_ key: String, required: Bool) -> String? {
        read(key, required: required, expected: "a slug of 1 to 64 characters a-z, 0-9 or _") {
            $0.stringValue.flatMap { ContractFormat.isSlug($0) ? $0 : nil }
        }
    }

    /// A push token valid for its provider; APNs hex is lower-cased so a sender's upper-case
    /// token matches the app's registration.
    mutating func token(_ key: String, required: Bool, provider: PushProvider?) -> String? {
        guard let provider else {
            // The provider itself is missing or invalid: still report a missing token.
            return read(key, required: required, expected: "a string") { $0.stringValue }
        }
        switch provider {
        case .apns:
            return read(key, required: required, expected: "an APNs token: hex of even length 64 to 200") {
                $0.stringValue.flatMap { ContractFormat.isAPNsToken($0) ? $0.lowercased() : nil }
            }
        case .fcm:
            return read(key, required: required, expected: "an FCM token: 1 to 4096 printable ASCII characters") {
                $0.stringValue.flatMap { ContractFormat.isFCMToken($0) ? $0 : nil }
            }
        case .webpush:
            return read(key, required: required, expected: "an https push subscription endpoint (at most 2048 bytes)") {
                $0.stringValue.flatMap { ContractFormat.isWebPushEndpoint($0) ? $0 : nil }
            }
        }
    }

    /// A Web Push `Topic` (contract v1.3).
    mutating func topic(_ key: String) -> String? {
        read(key, required: false, expected: "1 to 32 characters of A-Z, a-z, 0-9, - or _") {
            $0.stringValue.flatMap { ContractFormat.isTopic($0) ? $0 : nil }
        }
    }

    /// A collapse id (contract v1.2): 1…64 bytes of printable ASCII (0x20…0x7E).
    mutating func collapseID(_ key: String) -> String? {
        read(key, required: false, expected: "1 to 64 printable ASCII characters") {
            $0.stringValue.flatMap { ContractFormat.isCollapseID($0) ? $0 : nil }
        }
    }

    /// An array; its elements are the caller's business.
    mutating func array(_ key: String, required: Bool) -> [JSONValue]? {
        read(key, required: required, expected: "an array") { $0.arrayValue }
    }
}
