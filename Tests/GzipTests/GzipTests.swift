import Gzip
import Testing

@Suite struct GzipTests {
    private func sample(_ count: Int, seed: UInt64 = 42) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 59) &+ 97  // compressible letters
        }
    }

    @Test(arguments: [0, 1, 100, 70_000, 1_000_000])
    func roundTrip(size: Int) throws {
        let original = sample(size)
        let packed = Gzip.compress(original)
        #expect(packed.prefix(2) == [0x1f, 0x8b])
        #expect(try Gzip.decompress(packed, limit: 2_000_000) == original)
    }

    /// A small body that inflates to many times its size fills the output chunk many times over.
    @Test func aSmallBodyThatInflatesALotRoundTrips() throws {
        let original = [UInt8](
            String(repeating: #"{"type":"notification_received","displayed":true},"#, count: 20_000).utf8)
        let packed = Gzip.compress(original)
        #expect(packed.count * 100 < original.count)
        #expect(try Gzip.decompress(packed, limit: original.count) == original)
    }

    @Test func concatenatedMembers() throws {
        let a = sample(1000, seed: 1), b = sample(500, seed: 2)
        #expect(try Gzip.decompress(Gzip.compress(a) + Gzip.compress(b), limit: 10_000) == a + b)
    }

    @Test func bombStopsAtTheLimit() {
        let bomb = Gzip.compress([UInt8](repeating: 0, count: 50_000_000))
        #expect(bomb.count < 100_000)
        #expect(throws: Gzip.Failure.tooLarge(limit: 8 << 20)) { try Gzip.decompress(bomb, limit: 8 << 20) }
    }

    @Test func exactLimitIsAllowed() throws {
        let data = sample(4096)
        #expect(try Gzip.decompress(Gzip.compress(data), limit: 4096).count == 4096)
        #expect(throws: Gzip.Failure.tooLarge(limit: 4095)) { try Gzip.decompress(Gzip.compress(data), limit: 4095) }
    }

    @Test func truncatedIsCorrupt() {
        let packed = Gzip.compress(sample(10_000))
        for cut in [1, 5, 10, packed.count / 2, packed.count - 1] {
            #expect(throws: Gzip.Failure.self) { try Gzip.decompress(Array(packed.prefix(cut)), limit: 1 << 20) }
        }
    }

    @Test func garbageAndEmptyAreCorrupt() {
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(Array("{\"not\":\"gzip\"}".utf8), limit: 1000) }
        #expect(throws: Gzip.Failure.corrupt("empty body")) { try Gzip.decompress([], limit: 1000) }
        var flipped = Gzip.compress(sample(5000))
        flipped[flipped.count - 6] ^= 0xff  // CRC32 no longer matches
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(flipped, limit: 1 << 20) }
    }

    @Test func errorsReadWell() {
        #expect(Gzip.Failure.tooLarge(limit: 10).description == "decompressed body exceeds 10 bytes")
        #expect(Gzip.Failure.corrupt("x").description == "invalid gzip data: x")
    }
}
