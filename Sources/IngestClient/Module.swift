/// Placeholder until the module lands.
enum IngestClientModule {}
