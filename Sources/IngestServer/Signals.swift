import Dispatch
import Foundation
import HTTPServer
import Metrics
import PushLedgerSupport
import Synchronization

extension IngestServer {
    /// Runs the server until SIGTERM or SIGINT, then stops gracefully and returns (the CLI
    /// exits 0). A second signal during the drain exits at once with status 1. SIGHUP reloads
    /// the key table and, with TLS, the certificate. `started` runs once the port is bound (the
    /// CLI prints the address; tests learn the port).
    public static func run(
        config: IngestServerConfig, store: any IngestStore, logger: Logger, version: String = "dev",
        started: (IngestServer) -> Void = { _ in }
    ) throws(HTTPServerError) {
        let server = IngestServer(config: config, store: store, logger: logger, version: version)
        let stopRequested = DispatchSemaphore(value: 0)
        let watcher = SignalWatcher(signals: [SIGTERM, SIGINT]) { signal, count in
            if count == 1 {
                logger.info("signal received, draining", ["signal": "\(signal)"])
                stopRequested.signal()
            } else {
                logger.warning("second signal, exiting now", ["signal": "\(signal)"])
                exit(.failure)
            }
        }
        let reload = SignalWatcher(signals: [SIGHUP]) { _, _ in
            logger.info("signal received, reloading", ["signal": "\(SIGHUP)"])
            server.refreshKeys()
            server.reloadCertificate()
        }
        defer {
            watcher.cancel()
            reload.cancel()
        }
        try server.start()
        started(server)
        stopRequested.wait()
        server.stop()
    }
}
