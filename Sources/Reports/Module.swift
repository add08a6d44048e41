/// Placeholder until the module lands.
enum ReportsModule {}
