// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "forcestage",
    products: [
        .executable(name: "forcestage", targets: ["forcestage"]),
        // The benchmark harness: its own program, so the shipped forcestage never links malloc-interposer.
        .executable(name: "forcestage-bench", targets: ["forcestage-bench"]),
        .library(name: "ForceStageCore", targets: ["ForceStageCore"]),
        .library(name: "ForceStageHost", targets: ["ForceStageHost"]),
        .library(name: "ForceStageIIO", targets: ["ForceStageIIO"]),
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
        // The embedded-clean core: no Foundation, no existentials, no allocation per scan.
        .target(
            name: "ForceStageCore",
            swiftSettings: [.enableExperimentalFeature("ValueGenerics")]
        ),
        // libiio's C API, linked through pkg-config.
        .systemLibrary(
            name: "CIIO",
            pkgConfig: "libiio",
            providers: [.apt(["libiio-dev"])]
        ),
        // Host tooling: recordings, replay, scoring (Foundation allowed here).
        .target(
            name: "ForceStageHost",
            dependencies: ["ForceStageCore"]
        ),
        // Swift over libiio: context, devices, channels, buffers, errno-carrying errors.
        .target(
            name: "ForceStageIIO",
            dependencies: ["CIIO", "ForceStageCore"]
        ),
        // Plays the kernel's IIO ABI from a recording inside a private mount namespace.
        .target(
            name: "ForceStageEmulator",
            dependencies: ["ForceStageCore", "ForceStageHost"],
            path: "hardware/emulator"
        ),
        // The measured loops and baselines, shared by `forcestage-bench` and Benchmarks/.
        .target(
            name: "ForceStageBench",
            dependencies: [
                "CIIO", "ForceStageCore", "ForceStageHost",
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]
        ),
        // The deployable service: reader, classifier and sink threads over lock-free rings, socket, systemd.
        .target(
            name: "ForceStageService",
            dependencies: [
                "ForceStageCore", "ForceStageHost", "ForceStageIIO",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "forcestage",
            dependencies: [
                "ForceStageCore",
                "ForceStageHost",
                "ForceStageIIO",
                "ForceStageEmulator",
                "ForceStageService",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `forcestage-bench`: the only program that links ForceStageBench (and so malloc-interposer).
        .executableTarget(
            name: "forcestage-bench",
            dependencies: [
                "ForceStageCore", "ForceStageHost", "ForceStageBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "ForceStageCoreTests",
            dependencies: [
                "ForceStageCore", "ForceStageHost", "CIIO", "ForceStageBench",
            ]
        ),
        .testTarget(
            name: "ForceStageHostTests",
            dependencies: ["ForceStageCore", "ForceStageHost"]
        ),
        // Needs root: runs the built forcestage, iio_info, iio_readdev and iiod in the emulator.
        .testTarget(
            name: "ForceStageIIOTests",
            dependencies: ["ForceStageCore", "ForceStageHost", "ForceStageIIO", "ForceStageEmulator"]
        ),
        // Ring and budget unit tests; the service end to end in the emulator (needs root, skipped otherwise).
        .testTarget(
            name: "ForceStageServiceTests",
            dependencies: [
                "ForceStageCore", "ForceStageHost", "ForceStageService", "ForceStageBench",
            ]
        ),
    ]
)
