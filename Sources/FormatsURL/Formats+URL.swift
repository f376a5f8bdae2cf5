#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_exported import ForceStageFormats

// The `URL` and `Data` forms of ForceStageFormats' file API, for the tools, the
// emulator, the benchmarks and the tests. ForceStageFormats itself takes paths
// and bytes and imports no Foundation, so `forcestage-service` loads none
// (docs/benchmarks.md, "Footprint"); each form here is one call to its path-based core.

extension Profile {
    /// Reads and validates a profile (``Profile/load(path:)``).
    public static func load(_ url: URL) throws(InputError) -> Profile { try load(path: url.path) }

    /// Saves `text` at `url` if it is a valid profile (``Profile/save(_:toPath:)``).
    @discardableResult
    public static func save(_ text: String, to url: URL) throws -> Profile { try save(text, toPath: url.path) }
}

extension RecordingMetadata {
    /// Reads and validates `STEM.json` (``RecordingMetadata/load(path:)``).
    public static func load(_ url: URL) throws(InputError) -> RecordingMetadata { try load(path: url.path) }

    /// Parses and validates metadata (``RecordingMetadata/parse(bytes:file:)``).
    public static func parse(_ data: Data, file: String) throws(InputError) -> RecordingMetadata {
        try parse(bytes: [UInt8](data), file: file)
    }
}

extension Recording {
    /// The `.iio` file beside a `.json` (``Recording/dataPath(forMetadata:)``).
    public static func dataURL(forMetadata url: URL) -> URL { URL(fileURLWithPath: dataPath(forMetadata: url.path)) }

    /// Reads `STEM.json` and `STEM.iio` (``Recording/load(path:)``).
    public static func load(_ jsonURL: URL) throws(InputError) -> Recording { try load(path: jsonURL.path) }

    /// Writes `STEM.json` and `STEM.iio` atomically (``Recording/write(toPath:)``).
    public func write(to jsonURL: URL) throws { try write(toPath: jsonURL.path) }
}

extension AtomicFile {
    /// ``AtomicFile/write(_:toPath:)`` for `Data` at a `URL`.
    public static func write(_ data: Data, to url: URL) throws { try write([UInt8](data), toPath: url.path) }

    /// ``AtomicFile/temporaryPrefix(forPath:)``.
    public static func temporaryPrefix(for url: URL) -> String { temporaryPrefix(forPath: url.path) }
}

extension ProfileLibrary {
    /// Reads every `*.toml` in `directory` (``ProfileLibrary/init(directoryPath:)``).
    public init(directory: URL) throws(InputError) { try self.init(directoryPath: directory.path) }
}

extension CalibrationChoice.Candidates {
    /// The directory of profiles (``libraryPath``) as a `URL`.
    public var library: URL? {
        get { libraryPath.map { URL(fileURLWithPath: $0) } }
        set { libraryPath = newValue?.path }
    }
}

/// ``readBounded(path:limit:what:hint:)`` for a `URL`.
public func readBounded(_ url: URL, limit: Int, what: String, hint: String) throws(InputError) -> [UInt8] {
    try readBounded(path: url.path, limit: limit, what: what, hint: hint)
}

/// ``checkoutItemPath(_:directory:)`` as a `URL`.
public func checkoutItem(_ relative: String, directory: Bool = false) -> URL? {
    checkoutItemPath(relative, directory: directory).map { URL(fileURLWithPath: $0) }
}

/// The bundled demo recording, `hardware/recordings/demo-hx711.json`.
public func bundledDemoRecording() -> URL? { bundledDemoRecordingPath().map { URL(fileURLWithPath: $0) } }

/// The profile library, `calibration/`.
public func profileDirectory() -> URL? { profileDirectoryPath().map { URL(fileURLWithPath: $0) } }
