/// Placeholder until the module lands.
enum StoreModule {}
