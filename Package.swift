// swift-tools-version:6.0
import PackageDescription

// Layers, bottom up: C shims (system libraries) → pure core → Postgres client → store →
// ingest server / reports / simulator → the `pushledger` executable that only wires them.
let package = Package(
    name: "PushLedger",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pushledger", targets: ["pushledger"])
    ],
    targets: [
        // Thin C shims over Debian libraries.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // Pure logic: contract types and validation, outcome rules, statistics, encoders, CLI parsing.
        .target(name: "PushLedgerCore"),
        // The one way the project talks to PostgreSQL.
        .target(name: "Postgres", dependencies: ["CLibPQ"]),
        // gzip encode/decode on zlib.
        .target(name: "Gzip", dependencies: ["CZlib"]),
        // Product-specific database work: migrations, keys, event writer, retention, rollups.
        .target(name: "Store", dependencies: ["PushLedgerCore", "Postgres"]),
        // The v1 HTTP ingest service on libmicrohttpd.
        .target(name: "IngestServer", dependencies: ["PushLedgerCore", "Postgres", "Store", "Gzip", "CMicroHTTPD"]),
        // A small HTTP/1.1 client for posting batches (simulator, tests, benchmarks).
        .target(name: "IngestClient", dependencies: ["Gzip"]),
        // Fleet simulator: generated installations and sender, with the expected truth.
        .target(name: "Simulator", dependencies: ["PushLedgerCore", "IngestClient"]),
        // Reports and alerts over the outcome engine in sql/.
        .target(name: "Reports", dependencies: ["PushLedgerCore", "Postgres", "Store", "IngestClient"]),
        // Benchmark tooling for scripts/bench.sh (not part of the product).
        .target(name: "Bench", dependencies: ["Simulator", "Gzip", "IngestClient"]),
        .executableTarget(name: "pushledger-bench", dependencies: ["Bench", "PushLedgerCore", "Simulator"]),
        .executableTarget(
            name: "pushledger",
            dependencies: ["PushLedgerCore", "Postgres", "Store", "IngestServer", "IngestClient", "Simulator", "Reports"]
        ),

        // Test helpers: throwaway databases on the project-local cluster.
        .target(name: "TestSupport", dependencies: ["Postgres", "Store"], path: "Tests/TestSupport"),
        .testTarget(name: "PushLedgerCoreTests", dependencies: ["PushLedgerCore"]),
        .testTarget(name: "GzipTests", dependencies: ["Gzip"]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestSupport"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "TestSupport"]),
        .testTarget(name: "IngestServerTests", dependencies: ["IngestServer", "IngestClient", "TestSupport"]),
        .testTarget(name: "SimulatorTests", dependencies: ["Simulator", "IngestServer", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["TestSupport"]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "Simulator", "IngestServer", "TestSupport"]),
        // Fault and abuse suite: the real `pushledger serve` as a child process, killed, starved of
        // its database, stopped under load and fed hostile input.
        .testTarget(
            name: "FaultTests", dependencies: ["TestSupport", "IngestClient", "Simulator", "PushLedgerCore", "Postgres", "Gzip"]),
    ],
    swiftLanguageModes: [.v6]
)
