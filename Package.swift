// swift-tools-version:6.0
import PackageDescription

// Layers, bottom up: C shims (system libraries) → support, contract, rules (pure) → Postgres client → store →
// ingest server / reports / simulator → the `pushledger` executable that only wires them.
let package = Package(
    name: "PushLedger",
    platforms: [.macOS(.v13), .iOS(.v15)],
    products: [
        .executable(name: "pushledger", targets: ["pushledger"]),
        // The client SDK for Apple apps: only its own targets, the pure contract and zlib. Static so
        // `swift build --product PushLedgerKit` builds it alone (an automatic library cannot be named).
        .library(name: "PushLedgerKit", type: .static, targets: ["PushLedgerKit"]),
    ],
    targets: [
        // Thin C shims over Debian libraries.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Support shared by every layer: time and ISO weeks, JSON, SHA-256, structured logs.
        .target(name: "PushLedgerSupport"),
        // The wire contract: event types, limits, validation, encoding.
        .target(name: "PushLedgerContract", dependencies: ["PushLedgerSupport"]),
        // The rulebook's Swift side: outcome rules, rejection classes, display state, statistics.
        .target(name: "PushLedgerRules", dependencies: ["PushLedgerContract"]),
        // Command-line parsing: commands as types with typed, declared options; help generated from them.
        .target(name: "CommandLineParsing", dependencies: ["PushLedgerSupport"]),
        // Terminal tables (fitted to 120 columns) and their CSV/Markdown/JSON export.
        .target(name: "TableRendering", dependencies: ["PushLedgerSupport", "PushLedgerRules"]),
        // Universal link / App Link association: file parsers, the path matchers, verdicts (pure).
        .target(name: "LinkCheck", dependencies: ["PushLedgerSupport"]),
        // HTTPS fetches of association files as the OS verifiers make them, on libcurl.
        .target(name: "LinkFetch", dependencies: ["LinkCheck", "CCurl"]),
        // The one way the project talks to PostgreSQL.
        .target(name: "Postgres", dependencies: ["CLibPQ", "PushLedgerSupport"]),
        // gzip encode/decode on zlib.
        .target(name: "Gzip", dependencies: ["CZlib"]),
        // Product-specific database work: migrations, keys, event writer, sends import, retention, link checks.
        .target(name: "Store", dependencies: ["PushLedgerContract", "PushLedgerRules", "Postgres", "LinkCheck"]),
        // An HTTP/1.1 server on libmicrohttpd: daemon, listeners, connection guard, TLS, trusted proxies.
        .target(name: "HTTPServer", dependencies: ["PushLedgerSupport", "CMicroHTTPD"]),
        // Long-running commands' upkeep: Prometheus exposition (histograms, the registry, the text
        // format, a /metrics endpoint on HTTPServer) and signal handling.
        .target(name: "Metrics", dependencies: ["HTTPServer", "PushLedgerSupport"]),
        // The v1 ingest service on HTTPServer: routes, keys, queue and writers, its metrics.
        .target(
            name: "IngestServer",
            dependencies: ["PushLedgerContract", "Postgres", "Store", "Gzip", "HTTPServer", "Metrics"]
        ),
        // A small HTTP/1.1 client (simulator, tests, benchmarks, alert webhooks); HTTPS on libcurl.
        .target(name: "HTTPClient", dependencies: ["Gzip", "PushLedgerSupport", "CCurl"]),
        // Fleet simulator: generated installations and sender, with the expected truth.
        .target(
            name: "Simulator",
            dependencies: [
                "PushLedgerSupport", "PushLedgerContract", "PushLedgerRules", "CommandLineParsing", "HTTPClient",
            ]
        ),
        // The outcome engine's passes over sql/engine: refresh and rebuild, the follower and its
        // schedule and metrics, the rollups' freshness.
        .target(name: "OutcomeEngine", dependencies: ["Postgres", "PushLedgerRules", "PushLedgerSupport", "Metrics"]),
        // Reports and alerts over the outcome engine in sql/: they read, never refresh.
        .target(
            name: "Reports",
            dependencies: ["PushLedgerRules", "TableRendering", "Postgres", "HTTPClient", "OutcomeEngine"]
        ),
        // The client SDK: events, durable journal, upload (Foundation only), and the thin Apple adapter.
        .target(name: "PushLedgerKit", dependencies: ["PushLedgerContract", "PushLedgerSupport", "Gzip"]),
        // Records events into a journal directory from its own process, for the SDK's multi-process tests.
        .executableTarget(name: "pushledger-kit-probe", dependencies: ["PushLedgerKit", "PushLedgerSupport"]),
        // Benchmark tooling for scripts/bench.sh (not part of the product).
        .target(name: "Bench", dependencies: ["Simulator", "Gzip", "HTTPClient"]),
        .executableTarget(name: "pushledger-bench", dependencies: ["Bench", "CommandLineParsing", "Simulator"]),
        // The `links check` workflow: an app's identities and tapped hosts, each domain fetched and judged, stored.
        .target(
            name: "LinkAudit",
            dependencies: [
                "LinkCheck", "LinkFetch", "Postgres", "PushLedgerRules", "PushLedgerSupport", "Store", "TableRendering",
            ]
        ),
        // The executable: one type per command (Sources/pushledger/Commands), parsing and wiring only.
        .executableTarget(
            name: "pushledger",
            dependencies: [
                "CommandLineParsing", "TableRendering", "Postgres", "Store", "IngestServer", "Simulator", "Reports",
                "LinkAudit", "OutcomeEngine", "Metrics",
            ],
            plugins: ["BuildInfo"]
        ),
        // Stamps `pushledger --version` with VERSION and the git commit at every build (scripts/build-info.sh).
        .plugin(name: "BuildInfo", capability: .buildTool()),

        // Test helpers: throwaway databases on the project-local cluster, child processes, raw HTTP.
        .target(
            name: "TestSupport",
            dependencies: ["Postgres", "PushLedgerKit", "PushLedgerSupport", "Simulator", "Store"],
            path: "Tests/TestSupport"
        ),

        // Unit suites: no database, no service; `make test-unit` runs these targets.
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "PushLedgerSupportTests", dependencies: ["PushLedgerSupport"]),
        .testTarget(name: "PushLedgerContractTests", dependencies: ["PushLedgerContract", "PushLedgerSupport"]),
        .testTarget(name: "PushLedgerRulesTests", dependencies: ["PushLedgerContract", "PushLedgerRules"]),
        .testTarget(name: "CommandLineParsingTests", dependencies: ["CommandLineParsing", "PushLedgerSupport"]),
        // Every `pushledger` command's help, and every example in README.md and docs/, parsed in-process.
        .testTarget(name: "CommandTreeTests", dependencies: ["pushledger", "CommandLineParsing"]),
        .testTarget(
            name: "TableRenderingTests",
            dependencies: ["TableRendering", "PushLedgerRules", "PushLedgerSupport"]
        ),
        .testTarget(name: "LinkCheckTests", dependencies: ["LinkCheck"]),
        .testTarget(name: "GzipTests", dependencies: ["Gzip"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["Gzip", "HTTPClient", "TestSupport"]),
        // The ingest server's logic without a database: the queue, its fairness and rate limits, the
        // workers; routes, the answers decided from headers, keys; the Prometheus exposition.
        .testTarget(
            name: "IngestQueueingTests", dependencies: ["IngestServer", "PushLedgerContract", "Store", "TestSupport"]
        ),
        .testTarget(
            name: "IngestRoutingTests",
            dependencies: [
                "HTTPServer", "IngestServer", "PushLedgerContract", "PushLedgerSupport", "Store", "TestSupport",
            ]
        ),
        .testTarget(name: "IngestMetricsTests", dependencies: ["IngestServer", "Metrics"]),
        // Alert rules and their evaluation, the webhook, and device text as a chat or a terminal shows it.
        .testTarget(name: "AlertingTests", dependencies: ["PushLedgerRules", "Reports", "TestSupport"]),
        // The SDK's uploads against the scripted loopback server, and its Apple mapping on plain values.
        .testTarget(name: "PushLedgerKitClientTests", dependencies: ["Gzip", "PushLedgerKit", "TestSupport"]),

        // Integration suites: a real PostgreSQL (and, some, nginx, Chromium, Prometheus, Patroni).
        .testTarget(
            name: "LinkFetchTests",
            dependencies: ["LinkFetch", "LinkCheck", "TestSupport"], exclude: ["Sites"]
        ),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestSupport"]),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "OutcomeEngine", "Postgres", "PushLedgerContract", "PushLedgerRules", "PushLedgerSupport", "Reports",
                "Store", "TestSupport",
            ]
        ),
        .testTarget(
            name: "IngestServerTests",
            dependencies: [
                "Gzip", "HTTPServer", "IngestServer", "Metrics", "Postgres", "PushLedgerContract", "PushLedgerSupport",
                "Store", "TestSupport",
            ]
        ),
        // No database, but whole fleets generated and recounted: too slow for the unit run.
        .testTarget(
            name: "SimulatorTests",
            dependencies: [
                "Gzip", "HTTPClient", "PushLedgerContract", "PushLedgerRules", "PushLedgerSupport", "Simulator",
                "Store", "TestSupport",
            ]
        ),
        .testTarget(name: "CLITests", dependencies: ["Postgres", "TestSupport"]),
        .testTarget(
            name: "PushLedgerKitTests",
            dependencies: ["Postgres", "PushLedgerKit", "PushLedgerSupport", "TestSupport"]
        ),
        .testTarget(
            name: "ReportsTests",
            dependencies: [
                "HTTPServer", "IngestServer", "OutcomeEngine", "Postgres", "PushLedgerRules", "PushLedgerSupport",
                "Reports", "Simulator", "Store", "TestSupport",
            ]
        ),
        // Fault and abuse suite: the real `pushledger serve` as a child process, killed, starved of
        // its database, stopped under load and fed hostile input.
        .testTarget(
            name: "FaultTests",
            dependencies: [
                "Bench", "Gzip", "HTTPClient", "IngestServer", "Postgres", "PushLedgerContract", "PushLedgerSupport",
                "Simulator", "TestSupport",
            ]
        ),
        // Past one machine: ingestors behind nginx (Debian package), reads on a streaming replica,
        // failover of a Patroni cluster (Debian's patroni and etcd-server) under load.
        .testTarget(
            name: "ScaleTests",
            dependencies: ["HTTPClient", "Postgres", "PushLedgerSupport", "Simulator", "Store", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
