import Foundation
import PushLedgerSupport
import Testing

@testable import PushLedgerContract

@Suite struct ContractScalarTests {
    /// 2026-11-30T10:00:05Z in seconds since 1970, computed independently of the parser.
    static let reference: Int64 = 1_796_032_805

    @Test(
        arguments: [
            ("2026-11-30T10:00:05Z", reference * 1_000_000),
            ("2026-11-30t10:00:05z", reference * 1_000_000),
            ("2026-11-30T10:00:05.1Z", reference * 1_000_000 + 100_000),
            ("2026-11-30T10:00:05.120Z", reference * 1_000_000 + 120_000),
            ("2026-11-30T10:00:05.123456Z", reference * 1_000_000 + 123_456),
            ("2026-11-30T10:00:05.123456789Z", reference * 1_000_000 + 123_456),
            ("2026-11-30T15:30:05+05:30", reference * 1_000_000),
            ("2026-11-30T02:00:05.5-08:00", reference * 1_000_000 + 500_000),
            ("2026-11-30T10:00:05+00:00", reference * 1_000_000),
            ("2026-11-30T09:59:60Z", reference * 1_000_000 - 5_000_000),
            ("2028-02-29T00:00:00Z", 1_835_395_200 * 1_000_000),
            ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59.5Z", -500_000),
        ] as [(String, Int64)])
    func rfc3339Accepts(text: String, micros: Int64) {
        #expect(RFC3339.microseconds(text) == micros)
    }

    @Test(arguments: [
        "", "2026-11-30", "2026-11-30T10:00Z", "2026-11-30T10:00:05", "2026-11-30 10:00:05Z",
        "2026-11-30T10:00:05+0530",
        "2026-11-30T10:00:05+05", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z",
        "2026-11-30T24:00:00Z", "2026-11-30T10:60:00Z", "2026-11-30T10:00:61Z", "2026-11-30T10:00:05.Z",
        "2026-11-30T10:00:05ZZ",
        "2026-11-30T10:00:05Z ", " 2026-11-30T10:00:05Z", "2026-11-3OT10:00:05Z", "+2026-11-30T10:00:05Z",
        "2026-11-30T10:00:05+24:00",
        "2026-11-30T10:00:05,5Z", "２026-11-30T10:00:05Z",
    ])
    func rfc3339Rejects(text: String) {
        #expect(RFC3339.microseconds(text) == nil)
    }

    @Test func rfc3339FormatsWhatItParses() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let micros = Int64.random(in: -2_000_000_000_000_000...7_000_000_000_000_000, using: &rng)
            #expect(RFC3339.microseconds(RFC3339.format(microseconds: micros)) == micros)
        }
        #expect(RFC3339.format(microseconds: Self.reference * 1_000_000 + 120_000) == "2026-11-30T10:00:05.120000Z")
        #expect(RFC3339.format(microseconds: -1) == "1969-12-31T23:59:59.999999Z")
        #expect(RFC3339.format(RFC3339.date("2026-11-30T10:00:05.000001Z")!) == "2026-11-30T10:00:05.000001Z")
    }

    @Test(arguments: [
        "7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a21", "7F1C6A0E-3C55-4C0E-9D55-1B7A3F0F9A21",
        "7f1C6a0E-3c55-4C0e-9D55-1b7A3f0F9a21",
        "00000000-0000-0000-0000-000000000000",
    ])
    func uuidsInCanonicalForm(text: String) {
        #expect(ContractFormat.uuid(text) == UUID(uuidString: text.uppercased()))
        #expect(ContractFormat.uuid(text) != nil)
    }

    @Test(arguments: [
        "", "7f1c6a0e3c554c0e9d551b7a3f0f9a21", "{7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a21}",
        "7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a2",
        "7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a211", "7f1c6a0e3-c55-4c0e-9d55-1b7a3f0f9a21",
        "7f1c6a0g-3c55-4c0e-9d55-1b7a3f0f9a21",
        "urn:uuid:7f1c6a0e-3c55-4c0e-9d55-1b7a3f0f9a21", "7f1c6a0e_3c55_4c0e_9d55_1b7a3f0f9a21",
    ])
    func uuidsInOtherFormsAreRejected(text: String) {
        #expect(ContractFormat.uuid(text) == nil)
    }

    @Test func slugs() {
        for good in ["a", "first_screen", "after_first_order", "v2", "_", String(repeating: "z", count: 64)] {
            #expect(ContractFormat.isSlug(good), "\(good)")
        }
        for bad in ["", "First", "first-screen", "first screen", "é", String(repeating: "z", count: 65), "a\u{0}"] {
            #expect(!ContractFormat.isSlug(bad), "\(bad)")
        }
    }

    @Test func apnsTokens() {
        for length in [64, 66, 128, 200] {
            #expect(ContractFormat.isAPNsToken(String(repeating: "aF", count: length / 2)))
        }
        for bad in [
            String(repeating: "a", count: 63), String(repeating: "a", count: 65), String(repeating: "a", count: 202),
            String(repeating: "a", count: 62), String(repeating: "g", count: 64), "",
        ] {
            #expect(!ContractFormat.isAPNsToken(bad), "\(bad.count)")
        }
    }

    @Test func fcmTokens() {
        #expect(ContractFormat.isFCMToken("x"))
        #expect(ContractFormat.isFCMToken("dGVzd:APA91b-H_~ ok"))
        #expect(ContractFormat.isFCMToken(String(repeating: "t", count: 4096)))
        for bad in ["", String(repeating: "t", count: 4097), "tab\there", "é", "line\n", "del\u{7F}"] {
            #expect(!ContractFormat.isFCMToken(bad), "\(bad)")
        }
    }
}
