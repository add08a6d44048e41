import Testing

@Test func placeholderStoreTests() { #expect(1 + 1 == 2) }
