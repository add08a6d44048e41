import CMicroHTTPD
/// Placeholder until the module lands.
enum IngestServerModule { static let version = String(cString: MHD_get_version()) }
