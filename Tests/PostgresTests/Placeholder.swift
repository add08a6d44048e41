import Testing

@Test func placeholderPostgresTests() { #expect(1 + 1 == 2) }
