import Testing

@Test func placeholderSimulatorTests() { #expect(1 + 1 == 2) }
