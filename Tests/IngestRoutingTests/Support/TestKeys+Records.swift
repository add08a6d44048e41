import PushLedgerSupport
import TestSupport

@testable import IngestServer

extension TestKeys {
    /// The keys as the server's table holds them, for a key verifier without a database.
    static var records: [KeyRecord] {
        all.enumerated().map { index, key in
            KeyRecord(id: "k\(index + 1)", hash: SHA256.hash(key.0), appID: key.1, scope: key.2, revoked: key.3)
        }
    }
}
