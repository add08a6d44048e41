import Postgres
/// Placeholder until the helpers land.
enum TestSupportModule {}
