import CZlib
/// Placeholder until the module lands.
enum GzipModule { static let version = String(cString: zlibVersion()) }
