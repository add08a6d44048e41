import Testing

@Test func placeholderPushLedgerCoreTests() { #expect(1 + 1 == 2) }
