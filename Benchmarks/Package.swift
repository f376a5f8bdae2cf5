// swift-tools-version: 6.2
// The benchmark package: run from this directory with `swift package benchmark`
// (see docs/benchmarks.md). It is a package of its own
// so that `swift test` in the main package never builds the benchmark framework.
import PackageDescription

let package = Package(
    name: "forcestage-benchmarks",
    dependencies: [
        // Named, because a path dependency is otherwise known by its folder name.
        .package(name: "forcestage", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "ForceStageBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ForceStageBench", package: "forcestage"),
                .product(name: "ForceStageFormats", package: "forcestage"),
                .product(name: "ForceStageTools", package: "forcestage"),
                .product(name: "ForceStageCore", package: "forcestage"),
            ],
            path: "Benchmarks/ForceStageBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // callgrind's client requests (valgrind/callgrind.h), for the instruction counts.
        .target(name: "CallgrindMarks", path: "Tools/CallgrindMarks"),
        // Runs the measured loops between callgrind marks: Benchmarks/instructions.sh. It sits outside
        // Benchmarks/, where package-benchmark takes every executable for a benchmark.
        .executableTarget(
            name: "InstructionCounts",
            dependencies: [
                "CallgrindMarks",
                .product(name: "ForceStageBench", package: "forcestage"),
                .product(name: "ForceStageFormats", package: "forcestage"),
                .product(name: "ForceStageTools", package: "forcestage"),
                .product(name: "ForceStageCore", package: "forcestage"),
            ],
            path: "Tools/InstructionCounts"
        ),
    ]
)
