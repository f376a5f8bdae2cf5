// swift-tools-version: 6.2
import PackageDescription

// The house (docs/architecture.md, "Map of the house"): arrows point inward, toward Core.
//
//   CLI (forcestage) ──► ServiceCommand (run, status as ArgumentParser commands) ──► ServiceRun
//   forcestage-service ──► ServiceRun (run, status: options, own parser, execution) ──► Service ──► IIO ──► Core
//        (no Foundation, no ArgumentParser: FoundationEssentials at most)
//   CLI ──► CommandLine (options, runCommandLine) ──► Formats, IIO
//        │                  └──────► Formats ──► Gestures ──► Core
//        └──► Tools ──► Formats
//   Bench (forcestage-bench) ──► CommandLine, Tools, Formats, Core, malloc-interposer
//   hardware/emulator ──► Formats, Core
//   FormatsURL (URL/Data forms) ──► Formats; used by Tools, CLI, CommandLine, Bench, the emulator, never the service
//   Clock (the one monotonic clock) ◄── Formats, IIO and every host module above
//
// The shipped `forcestage` never links Bench or malloc-interposer.
let package = Package(
    name: "forcestage",
    products: [
        .executable(name: "forcestage", targets: ["forcestage"]),
        // run and status without Foundation: what the systemd unit starts, and what `forcestage run|status` exec.
        .executable(name: "forcestage-service", targets: ["forcestage-service"]),
        // The benchmark harness: its own program, so the shipped forcestage never links malloc-interposer.
        .executable(name: "forcestage-bench", targets: ["forcestage-bench"]),
        .library(name: "ForceStageCore", targets: ["ForceStageCore"]),
        .library(name: "ForceStageGestures", targets: ["ForceStageGestures"]),
        .library(name: "ForceStageFormats", targets: ["ForceStageFormats", "ForceStageFormatsURL"]),
        .library(name: "ForceStageTools", targets: ["ForceStageTools"]),
        .library(name: "ForceStageIIO", targets: ["ForceStageIIO"]),
        .library(name: "ForceStageService", targets: ["ForceStageService"]),
        .library(name: "ForceStageEmulator", targets: ["ForceStageEmulator"]),
        .library(name: "ForceStageBench", targets: ["ForceStageBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Counts malloc calls, so tests and `forcestage-bench` can show the per-scan path allocates nothing.
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
        // Structured logging for the long-lived service.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Core: the embedded-clean classifier (formats of a scan, calibration,
        // conditioning, classification, position). No Foundation, no
        // existentials, no allocation per scan.
        .target(
            name: "ForceStageCore",
            path: "Sources/Core",
            swiftSettings: [.enableExperimentalFeature("ValueGenerics")]
        ),
        // Gestures: the position-aware layer over the classifier's events:
        // regions, quick actions, moves, spring loading, progress.
        .target(
            name: "ForceStageGestures",
            dependencies: ["ForceStageCore"],
            path: "Sources/Gestures"
        ),
        // Clock: the one monotonic clock of every host module (no Foundation).
        .target(
            name: "ForceStageClock",
            path: "Sources/Clock"
        ),
        // Formats: recordings, profiles (TOML), event lines (JSON), their
        // limits and the exclusive file writer; each read once into a typed value.
        // No Foundation: files by path, contents as bytes, so the service links none.
        .target(
            name: "ForceStageFormats",
            dependencies: ["ForceStageClock", "ForceStageCore", "ForceStageGestures"],
            path: "Sources/Formats"
        ),
        // The `URL`/`Data` forms of Formats' file API (Profile.load(URL), Recording.write(to:),
        // AtomicFile.write(Data, to:), ...), thin wrappers for everything but the service.
        .target(
            name: "ForceStageFormatsURL",
            dependencies: ["ForceStageFormats"],
            path: "Sources/FormatsURL"
        ),
        // libiio's C API, linked through pkg-config.
        .systemLibrary(
            name: "CIIO",
            path: "Sources/CIIO",
            pkgConfig: "libiio",
            providers: [.apt(["libiio-dev"])]
        ),
        // IIO: Swift over libiio (contexts, devices, channels, buffers, triggers).
        .target(
            name: "ForceStageIIO",
            dependencies: ["CIIO", "ForceStageClock", "ForceStageCore"],
            path: "Sources/IIO"
        ),
        // Service: the deployable reader/classifier/sink over lock-free rings,
        // socket, evdev output, haptics, systemd.
        .target(
            name: "ForceStageService",
            dependencies: [
                "ForceStageClock", "ForceStageCore", "ForceStageGestures", "ForceStageFormats", "ForceStageIIO",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Service"
        ),
        // Tools: synthesizer, replay, plot, scoring and evaluation, the
        // calibration workflow.
        .target(
            name: "ForceStageTools",
            dependencies: ["ForceStageCore", "ForceStageGestures", "ForceStageFormats", "ForceStageFormatsURL"],
            path: "Sources/Tools"
        ),
        // Plays the kernel's IIO ABI from a recording inside a private mount namespace.
        .target(
            name: "ForceStageEmulator",
            dependencies: ["ForceStageClock", "ForceStageCore", "ForceStageFormats", "ForceStageFormatsURL"],
            path: "hardware/emulator",
            exclude: ["README.md"]
        ),
        // The command line both programs share: the option groups (PanelOptions:
        // device, calibration, rate), the one error type and its exit statuses.
        .target(
            name: "ForceStageCommandLine",
            dependencies: [
                "ForceStageFormats", "ForceStageFormatsURL", "ForceStageIIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/CommandLine"
        ),
        // The service's commands (run, status) as typed options, their checks, their
        // execution and `forcestage-service`'s own parser of them; shared by both
        // programs. No ArgumentParser and, like everything it links, no Foundation
        // (FoundationEssentials at most), so the service loads no ICU.
        .target(
            name: "ForceStageServiceRun",
            dependencies: [
                "ForceStageCore", "ForceStageFormats", "ForceStageIIO", "ForceStageService",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/ServiceRun"
        ),
        // `run` and `status` as `forcestage` parses them (ArgumentParser), over ServiceRun.
        .target(
            name: "ForceStageServiceCommand",
            dependencies: [
                "ForceStageCore", "ForceStageFormats", "ForceStageIIO", "ForceStageService", "ForceStageServiceRun",
                "ForceStageCommandLine",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/ServiceCommand"
        ),
        // `forcestage-service`: run and status, the long-lived service's program;
        // links no swift-argument-parser.
        .executableTarget(
            name: "forcestage-service",
            dependencies: ["ForceStageFormats", "ForceStageServiceRun"],
            path: "Sources/ServiceMain"
        ),
        // CLI: `forcestage`, one thin file per subcommand.
        .executableTarget(
            name: "forcestage",
            dependencies: [
                "ForceStageClock",
                "ForceStageCore",
                "ForceStageGestures",
                "ForceStageFormats",
                "ForceStageFormatsURL",
                "ForceStageTools",
                "ForceStageIIO",
                "ForceStageEmulator",
                "ForceStageService",
                "ForceStageServiceCommand",
                "ForceStageCommandLine",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/CLI"
        ),
        // Bench: the measured loops and baselines, shared by `forcestage-bench` and Benchmarks/.
        .target(
            name: "ForceStageBench",
            dependencies: [
                "CIIO", "ForceStageClock", "ForceStageCore", "ForceStageFormats", "ForceStageGestures", "ForceStageTools",
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            path: "Sources/Bench/Loops"
        ),
        // `forcestage-bench`: the only program that links ForceStageBench (and so malloc-interposer).
        .executableTarget(
            name: "forcestage-bench",
            dependencies: [
                "ForceStageCore", "ForceStageFormats", "ForceStageFormatsURL", "ForceStageTools", "ForceStageBench", "ForceStageCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Bench/Command"
        ),
        // What every test target shares: the package and ../shared found
        // relative to this file, the built binaries, emulator availability,
        // real processes with output in files.
        .target(
            name: "TestSupport",
            dependencies: ["ForceStageCore"],
            path: "Tests/Support"
        ),
        .testTarget(
            name: "CoreTests",
            dependencies: ["ForceStageCore", "ForceStageFormats", "ForceStageTools", "CIIO", "ForceStageBench", "TestSupport"]
        ),
        .testTarget(
            name: "FormatsTests",
            dependencies: ["ForceStageCore", "ForceStageFormats", "ForceStageTools", "TestSupport"]
        ),
        .testTarget(
            name: "ToolsTests",
            // ForceStageServiceRun: the service's option table, compared with forcestage's ArgumentParser commands.
            dependencies: ["ForceStageCore", "ForceStageGestures", "ForceStageFormats", "ForceStageTools", "ForceStageServiceRun", "TestSupport"]
        ),
        // Needs root: runs the built forcestage, iio_info, iio_readdev and iiod in the emulator.
        .testTarget(
            name: "IIOTests",
            dependencies: ["ForceStageCore", "ForceStageFormats", "ForceStageTools", "ForceStageIIO", "ForceStageEmulator", "TestSupport"]
        ),
        // Ring and budget unit tests; the service end to end in the emulator (needs root, skipped otherwise).
        .testTarget(
            name: "ServiceTests",
            dependencies: [
                "ForceStageCore", "ForceStageFormats", "ForceStageTools", "ForceStageService", "ForceStageBench", "TestSupport",
            ]
        ),
    ]
)
