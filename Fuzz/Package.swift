// swift-tools-version: 6.2
// libFuzzer targets for ForceStage's input readers. Kept out of the main
// package so `swift build` / `swift test` there are unaffected. Build and run
// with ./run.sh (see docs/architecture.md, "Fuzzing").
import PackageDescription

let fuzzTarget: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "ForceStageFuzz",
    dependencies: [.package(name: "forcestage", path: "..")],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "ForceStageFormats", package: "forcestage"),
                .product(name: "ForceStageTools", package: "forcestage"),
                           .product(name: "ForceStageCore", package: "forcestage")]
        ),
        // The recording reader: metadata JSON + raw scans, then a replay.
        .executableTarget(name: "FuzzRecording", dependencies: ["FuzzSupport"], swiftSettings: fuzzTarget),
        // The channel format-string parser (scan_elements/*_type).
        .executableTarget(name: "FuzzChannelFormat", dependencies: ["FuzzSupport"], swiftSettings: fuzzTarget),
        // The profile reader: TOML 1.0 and the profile schema, then the classifier's parameters.
        .executableTarget(name: "FuzzProfile", dependencies: ["FuzzSupport"], swiftSettings: fuzzTarget),
    ]
)
