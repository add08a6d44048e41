import Foundation
import PushLedgerSupport
import Testing

@testable import PushLedgerContract

/// The wire's strict RFC 3339 and the command line's `--from`/`--to` are two checks of one
/// date-time reader: a text the strict form accepts reads as the same instant in both.
@Suite struct TimestampFormsTests {
    /// Accepted by both, the same instant (the command line to the microsecond it rounds to).
    @Test(arguments: [
        "2026-11-30T10:00:05Z", "2026-11-30t10:00:05z", "2026-11-30T10:00:05.1Z", "2026-11-30T10:00:05.120Z",
        "2026-11-30T10:00:05.123456Z", "2026-11-30T15:30:05+05:30", "2026-11-30T02:00:05.5-08:00",
        "2026-11-30T10:00:05+00:00", "2026-11-30T10:00:05-00:00", "2026-11-30T10:00:05+23:59",
        "2028-02-29T00:00:00Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z", "2000-01-01T00:00:00.000001Z",
        "2026-12-31T23:59:59.999999Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
    ])
    func strictTextsReadAlikeInBoth(text: String) throws {
        let strict = try #require(RFC3339.microseconds(text))
        // The written offset wins over the command line's time zone.
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        #expect(RFC3339.microseconds(of: try Timestamp.parseInstant(text, timeZone: berlin)) == strict)
        #expect(RFC3339.microseconds(of: try Timestamp.parseInstant(text)) == strict)
    }

    /// Where they differ, and why: the command line's friendlier forms, RFC 3339's leap second, and
    /// fractions past the microsecond (the wire truncates to what the store keeps, the command line rounds).
    @Test(
        arguments: [
            ("2026-11-30", nil, 1_795_996_800_000_000),
            ("2026-11-30 10:00:05Z", nil, 1_796_032_805_000_000),
            ("2026-11-30T10:00Z", nil, 1_796_032_800_000_000),
            ("2026-11-30T10:00:05", nil, 1_796_032_805_000_000),
            ("2026-11-30T15:30:05+0530", nil, 1_796_032_805_000_000),
            ("2026-11-30T15:00:05+05", nil, 1_796_032_805_000_000),
            ("2026-11-30T09:59:60Z", 1_796_032_800_000_000, nil),
            ("2026-11-30T10:00:05.1234567Z", 1_796_032_805_123_456, 1_796_032_805_123_457),
            ("2026-11-30T10:00:05,5Z", nil, nil),
            ("2026-11-30T24:00:00Z", nil, nil),
        ] as [(String, Int64?, Int64?)])
    func formsDiffer(text: String, strict: Int64?, commandLine: Int64?) {
        #expect(RFC3339.microseconds(text) == strict)
        #expect((try? Timestamp.parseInstant(text)).map(RFC3339.microseconds(of:)) == commandLine)
    }
}
