import Testing

@Test func placeholderReportsTests() { #expect(1 + 1 == 2) }
