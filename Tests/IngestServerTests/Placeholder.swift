import Testing

@Test func placeholderIngestServerTests() { #expect(1 + 1 == 2) }
