// swift-tools-version:6.0
// Whereabouts: BLE indoor positioning for Linux.
//
// Dependencies point one way: executables → services → pure cores → C wrappers.
// Pure cores (BLE, Wire, SiteModel, ElementaryFunctions, Positioning, Simulation, Metrics) import
// neither Foundation nor a C module.
//
// The lab (Lab, whereabouts-lab, LabTests) measures the product and ships in no product: the
// walk and scenario accuracy report, the walk oracle, the simulator's oracle (Lab/Oracle*.swift),
// the dataset parser, the track pictures and the accuracy gate. It is a target of this package,
// not a tools/lab package of its own: the simulator's oracle reads Simulation's internals (the
// simulated channel, each device's true power and track), which `package` access opens to this
// package's targets only, where a second package would need them `public` in the product's API;
// one `swift build --build-tests` with the import check then covers it; and `make test` runs its
// gate with the rest. No product lists it, so the operator's `whereabouts` never links it.
// Options, the tools' command line, is pure in its parsing and line reading but takes from
// Glibc the few POSIX calls every main needs (standard error, signals, read(2) on a
// descriptor, opening a named file): never Foundation, never a C library of ours.
import PackageDescription

// The aggregator's hot path (decode, engine, publishing) in release builds: no dynamic
// exclusivity checks. Each access to a class's stored array (the engine's devices, links,
// queue) was checked at run time: 9 % of the aggregator's instructions under callgrind
// (docs/benchmarks.md). The compiler still proves exclusivity statically; debug builds and
// tests keep the run-time checks.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "Whereabouts",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "whereabouts-edge", targets: ["whereabouts-edge"]),
        .executable(name: "whereabouts-aggregator", targets: ["whereabouts-aggregator"]),
        .executable(name: "whereabouts", targets: ["whereabouts"]),
    ],
    targets: [
        // C libraries from Debian, wrapped: module.modulemap + shim.h, nothing else.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Benchmark support only: counts malloc calls so `make bench` can report allocations.
        .target(name: "CMallocCounter"),

        // Pure cores.
        // They use libm's rounding and sqrt through the standard library, so they link it.
        .target(name: "BLE"),
        // Wire: what crosses MQTT (batches, readings, dialects, topics, ids, the JSON scanner
        // and writer). SiteModel: the site file's model (floors, rooms, zones, nodes, geometry),
        // the config tree YAML builds, and the site's checks.
        .target(name: "Wire", swiftSettings: hotPath, linkerSettings: [.linkedLibrary("m")]),
        .target(name: "SiteModel", dependencies: ["Wire"], linkerSettings: [.linkedLibrary("m")]),
        // One log/exp/sin/cos for the engine, the simulator and the lab, @inlinable for the hot path.
        .target(name: "ElementaryFunctions"),
        .target(name: "Positioning", dependencies: ["Wire", "SiteModel", "ElementaryFunctions"], swiftSettings: hotPath,
                linkerSettings: [.linkedLibrary("m")]),
        .target(name: "Simulation", dependencies: ["Wire", "SiteModel", "BLE", "ElementaryFunctions"], linkerSettings: [.linkedLibrary("m")]),
        // The command line: parsing is pure; Tool.swift, LineReader+Descriptor.swift and
        // BrokerSettings+Files.swift use Glibc (see the top of this file).
        .target(name: "Options"),
        // Prometheus counters, gauges and histograms with the text exposition format.
        .target(name: "Metrics"),
        // The map's page (HTML, JavaScript, CSS), embedded in the aggregator: one binary to deploy.
        .target(name: "MapAssets", resources: [.embedInCode("web")]),

        // The only importers of their C library.
        .target(name: "YAML", dependencies: ["CYAML", "Wire", "SiteModel"]),
        .target(name: "MQTT", dependencies: ["CMosquitto", "Options", "SiteModel"]),
        .target(name: "HCI", dependencies: ["CBluetooth", "BLE"]),
        .target(name: "Storage", dependencies: ["CSQLite"]),
        // The PostgreSQL store: the Storage module's writer and queries over libpq.
        .target(name: "PostgresStorage", dependencies: ["CPostgres", "Storage"]),
        .target(name: "HTTP", dependencies: ["CMicroHTTPD"]),
        .target(name: "Crypto", dependencies: ["CCrypto"]),

        // Services.
        .target(name: "Edge", dependencies: ["BLE", "Wire", "SiteModel", "MQTT", "HCI", "YAML", "Crypto", "Options"]),
        .target(name: "Aggregator", dependencies: ["Positioning", "Wire", "SiteModel", "MQTT", "Storage", "PostgresStorage", "YAML", "HTTP", "Metrics", "Options",
                                                   "MapAssets"],
                swiftSettings: hotPath),

        // The lab: what measures positioning, beside the product (see the top of this file).
        .target(name: "Lab", dependencies: ["Positioning", "Simulation", "Wire", "SiteModel", "ElementaryFunctions"]),

        // Thin mains.
        .executableTarget(name: "whereabouts-edge", dependencies: ["Edge", "Options"]),
        .executableTarget(name: "whereabouts-aggregator", dependencies: ["Aggregator", "MQTT", "Options", "Positioning", "SiteModel", "Wire", "YAML"]),
        .executableTarget(name: "whereabouts", dependencies: ["BLE", "Wire", "SiteModel", "Positioning", "YAML", "Storage", "PostgresStorage", "Options", "Simulation", "MQTT"]),
        .executableTarget(name: "whereabouts-lab", dependencies: ["Lab", "Positioning", "Simulation", "Wire", "SiteModel", "YAML", "Options"]),
        .executableTarget(name: "whereabouts-bench", dependencies: ["BLE", "Wire", "SiteModel", "Positioning", "CMallocCounter", "Storage", "MQTT"]),

        // Tests.
        // Helpers shared by test targets (a seeded generator), not shipped in any product.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // Processes for the tests that run the real parts (a mosquitto broker on a free port, a
        // child with no signals blocked, an HTTP GET): Foundation, so apart from TestSupport,
        // which pure cores' tests use.
        .target(name: "ProcessSupport", path: "Tests/ProcessSupport"),
        .testTarget(name: "BLETests", dependencies: ["BLE", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "WireTests", dependencies: ["Wire", "SiteModel", "YAML", "TestSupport"]),
        .testTarget(name: "PositioningTests", dependencies: ["Positioning", "Wire", "SiteModel", "TestSupport"]),
        .testTarget(name: "OptionsTests", dependencies: ["Options"]),
        .testTarget(name: "HCITests", dependencies: ["HCI"]),
        .testTarget(name: "AggregatorTests", dependencies: ["Aggregator", "Wire", "SiteModel", "Metrics", "HTTP", "MQTT", "Options", "MapAssets"]),
        .testTarget(name: "EdgeTests", dependencies: ["Edge", "MQTT", "Wire", "YAML", "BLE", "Crypto"]),
        .testTarget(name: "IntegrationTests", dependencies: ["ProcessSupport", "MQTT", "Storage", "PostgresStorage", "Wire", "SiteModel", "BLE", "YAML"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage"]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "Positioning", "Wire", "SiteModel", "BLE", "YAML"]),
        .testTarget(name: "LabTests", dependencies: ["Lab", "Positioning", "Simulation", "Wire", "SiteModel", "BLE", "YAML", "ElementaryFunctions"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"]),
        // docs/protocol.md's examples, decoded by the product's decoders and compared with its writers;
        // its command lines and metrics checked against the built binaries.
        .testTarget(name: "ProtocolTests", dependencies: ["Wire", "SiteModel", "YAML", "Positioning", "Aggregator", "Edge", "MQTT", "Metrics", "ProcessSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
