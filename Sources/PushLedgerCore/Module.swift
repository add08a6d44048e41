/// Placeholder until the module lands.
enum PushLedgerCoreModule {}
