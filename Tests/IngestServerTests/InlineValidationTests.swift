import Foundation
import Gzip
import Synchronization
import TestSupport
import Testing

@testable import IngestServer

/// Small bodies are validated on the HTTP thread that read them; larger ones, and small gzip
/// that decompresses past the inline bound, wait for a validator like any other.
@Suite("Validation of small bodies on the HTTP threads")
struct InlineValidationTests {
    let harness: Harness

    init() throws {
        harness = try Harness()
    }

    /// Every validator thread held until `release` is signalled.
    private func holdEveryValidator() -> DispatchSemaphore {
        let release = DispatchSemaphore(value: 0)
        let service = harness.server.service
        for _ in 0..<service.validators.threads {
            service.validators.submit(app: "held") { release.wait() }
        }
        return release
    }

    @Test func aSmallBodyIsAnsweredWhileEveryValidatorIsBusyAndALargeOneWaitsForOne() throws {
        let small = Fixtures.telemetry(count: 3)
        let large = Fixtures.telemetry(count: 60)
        #expect(small.count <= harness.server.service.config.inlineBodyBytes)
        #expect(large.count > harness.server.service.config.inlineBodyBytes)
        let release = holdEveryValidator()

        let plain = try harness.telemetry(small)
        #expect(plain.status == 200 && plain.accepted == 3)
        let gzip = try harness.post("/v1/telemetry", Fixtures.telemetry(count: 2), gzip: true)
        #expect(gzip.status == 200 && gzip.accepted == 2)

        let answered = Mutex<RawReply?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let reply = try? harness.telemetry(large)
            answered.withLock { $0 = reply }
            done.signal()
        }
        // Held validators: the large body has no thread to be validated on.
        #expect(done.wait(timeout: .now() + 0.5) == .timedOut)
        release.signal()
        release.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
        let reply = answered.withLock { $0 }
        #expect(reply?.status == 200 && reply?.accepted == 60)
        #expect(try harness.storedCount == 65)
    }

    @Test func smallGzipThatDecompressesPastTheInlineBoundIsValidatedByAValidator() throws {
        // Trailing whitespace is valid JSON: a few bytes as sent, 64 KiB as text.
        let padded = Fixtures.telemetry(count: 2) + [UInt8](repeating: 32, count: 64 << 10)
        let packed = Gzip.compress(padded)
        #expect(packed.count <= harness.server.service.config.inlineBodyBytes)
        #expect(padded.count > harness.server.service.config.inlineDecodedBytes)
        let reply = try harness.request(
            "POST", "/v1/telemetry",
            headers: [
                ("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                ("Authorization", "Bearer \(TestKeys.telemetry)"),
            ],
            body: packed)
        #expect(reply.status == 200 && reply.accepted == 2)
    }

    @Test func aSmallBodyPastALowerDecompressedLimitGetsThe413ItWouldGetFromAValidator() throws {
        let strict = try Harness { $0.limits.maxDecompressedBytes = 8 << 10 }
        // 12 KiB of text: within the HTTP threads' 16 KiB, past the server's 8 KiB.
        let padded = Fixtures.telemetry(count: 1) + [UInt8](repeating: 32, count: 12 << 10)
        let reply = try strict.request(
            "POST", "/v1/telemetry",
            headers: [
                ("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                ("Authorization", "Bearer \(TestKeys.telemetry)"),
            ],
            body: Gzip.compress(padded))
        #expect(reply.status == 413 && reply.errorCode == "decompressed_too_large")
    }
}
