import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's nginx as a child process, running the project's own `deploy/nginx/pushledger.conf`
/// in front of the given ingestor ports. Only the file's `server …:8080;` lines and its `listen`
/// port are replaced; everything a test checks (keep-alive, body limit, retries, forwarded
/// address) is the deployed configuration. Stopped (and its folder removed) on deinit, so a
/// failing test does not leave it running.
final class NginxProcess: @unchecked Sendable {
    static let binary = "/usr/sbin/nginx"
    /// nginx connects to the ingestors from this address, so the ingestors can trust the proxy
    /// (`--trusted-proxy 127.0.0.2`) while test clients, on 127.0.0.1, stay untrusted.
    static let proxyAddress = "127.0.0.2"

    let port: UInt16
    let folder: URL
    private let process: Process

    init(upstreams: [UInt16]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw ScaleTestError(description: "\(Self.binary) not found (make test installs the Debian package nginx)")
        }
        guard let port = ServeProcess.freePort() else { throw ScaleTestError(description: "no free port") }
        self.port = port
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.configuration(upstreams: upstreams, port: port, folder: folder)
            .write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-p", folder.path + "/", "-c", folder.appendingPathComponent("nginx.conf").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(
            forWritingTo: { () -> URL in
                let log = folder.appendingPathComponent("stderr.log")
                FileManager.default.createFile(atPath: log.path, contents: nil)
                return log
            }())
        try process.run()
        let process = process
        guard ServeProcess.waitForListener(port: port, while: { ChildExit.poll(process) == nil }) else {
            throw ScaleTestError(description: "nginx never listened: \(errorLog)")
        }
    }

    deinit {
        if ChildExit.poll(process) == nil { kill(process.processIdentifier, SIGTERM) }
        ChildExit.wait(process)
        try? FileManager.default.removeItem(at: folder)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    var errorLog: String {
        ["stderr.log", "error.log"].compactMap {
            try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)
        }
        .joined(separator: "\n")
    }

    /// The deployed file with the test's ports, wrapped in a main configuration whose paths all
    /// lie in `folder` (no daemon, no /var/log, no /run).
    static func configuration(upstreams: [UInt16], port: UInt16, folder: URL) throws -> String {
        let deployed = try String(
            contentsOf: TestDatabase.repositoryRoot.appendingPathComponent("deploy/nginx/pushledger.conf"),
            encoding: .utf8)
        var site: [String] = []
        var replacedServers = false, replacedListen = false
        for line in deployed.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("server "), text.hasSuffix(":8080;") {
                if !replacedServers { site += upstreams.map { "    server 127.0.0.1:\($0);" } }
                replacedServers = true
            } else if text.hasPrefix("listen ") {
                site.append("    listen 127.0.0.1:\(port);")
                replacedListen = true
            } else {
                site.append(String(line))
            }
        }
        guard replacedServers, replacedListen else {
            throw ScaleTestError(
                description:
                    "deploy/nginx/pushledger.conf has no `server …:8080;` or `listen` line to point at the test")
        }
        let sitePath = folder.appendingPathComponent("pushledger.conf")
        try site.joined(separator: "\n").write(to: sitePath, atomically: true, encoding: .utf8)
        let dir = folder.path
        // As root, nginx's workers switch to an unprivileged user (Debian has no group "nobody").
        let user = geteuid() == 0 ? "user nobody nogroup;" : ""
        return """
            daemon off;
            \(user)
            worker_processes 1;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log warn;
            events { worker_connections 512; }
            http {
                access_log off;
                client_body_temp_path \(dir)/client_body;
                proxy_temp_path \(dir)/proxy;
                fastcgi_temp_path \(dir)/fastcgi;
                uwsgi_temp_path \(dir)/uwsgi;
                scgi_temp_path \(dir)/scgi;
                proxy_bind \(proxyAddress);
                include \(sitePath.path);
            }
            """
    }
}

struct ScaleTestError: Error, CustomStringConvertible {
    var description: String
}
