// swift-tools-version: 6.2
// libFuzzer target for the service socket's line protocol (client -> service).
// Builds the protocol's own source (a symlink to Sources/Service/SocketLine.swift)
// with the fuzzer entry point; see Fuzz/SocketLine.md.
import PackageDescription

let package = Package(
    name: "SocketLineFuzz",
    targets: [
        .executableTarget(
            name: "SocketLineFuzz",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ]
)
