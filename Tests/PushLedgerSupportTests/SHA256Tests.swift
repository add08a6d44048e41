import Testing

@testable import PushLedgerSupport

@Suite("SHA-256")
struct SHA256Tests {
    /// NIST FIPS 180-4 examples (csrc.nist.gov "SHA256.pdf", "SHA2_Additional.pdf").
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                + "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func nistVectors(message: String, digest: String) {
        #expect(SHA256.hex(SHA256.hash(message)) == digest)
    }

    @Test func oneMillionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hex(SHA256.hash(message)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths around the padding boundaries (55/56 bytes: length field fits or spills into a
    /// second block; 63/64, 119/120 likewise). References: python3 `hashlib.sha256(b"x" * n)`.
    @Test(arguments: [
        (55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"),
        (56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"),
        (63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"),
        (64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"),
        (119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"),
        (120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"),
    ])
    func paddingBoundaries(length: Int, digest: String) {
        let message = [UInt8](repeating: UInt8(ascii: "x"), count: length)
        #expect(SHA256.hex(SHA256.hash(message)) == digest)
    }

    @Test func digestIsThirtyTwoBytes() {
        #expect(SHA256.hash("key").count == 32)
    }

    @Test func constantTimeEquals() {
        let digest = SHA256.hash("secret")
        #expect(SHA256.constantTimeEquals(digest, SHA256.hash("secret")))
        #expect(!SHA256.constantTimeEquals(digest, SHA256.hash("secreT")))
        var lastByteDiffers = digest
        lastByteDiffers[31] ^= 1
        #expect(!SHA256.constantTimeEquals(digest, lastByteDiffers))
        #expect(!SHA256.constantTimeEquals(digest, Array(digest.prefix(31))))
        #expect(SHA256.constantTimeEquals([], []))
    }

    @Test func hexIsLowerCase() {
        #expect(SHA256.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
    }
}
