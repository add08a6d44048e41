import CLibPQ
/// Placeholder until the module lands.
enum PostgresModule { static let version = PQlibVersion() }
