import ForceStageFormats
import Foundation
import Testing

/// The path arithmetic that replaced `URL` in ForceStageFormats (so the service
/// links no Foundation) must name files exactly as `URL` did: messages, profile
/// names and the `.iio` beside a recording depend on it.
@Suite("PathText: paths as URL(fileURLWithPath:) reads them")
struct PathTextTests {
    static let paths = [
        "a.toml", "./a.toml", "../x/a.toml", "x/../y.toml", "x/./y/", "a//b.toml", "/abs/a.toml", "/abs//b/./c.toml",
        "dir/", "/abs/dir/", "", ".", "..", "a b.toml", "/", "~/a.toml", "~", "/d/.json", "/d/x.", "/d/x..json",
        "/d/rec.tar.json", "/d.x/rec", "rec", "/d/x.jsön", "ünï/cödé.toml",
        // Folders with dots, spaces and non-ASCII letters, as a checkout or `mktemp -d` makes them.
        "/tmp/tmp.Xy12/p/rec.json", "/tmp/fs tëst.d/p/rec.json", "/tmp/fs tëst.d/p/", "/tmp/tmp.Xy12",
        "/d.x/../rec.json", "/tmp/fs tëst.d/p/../rec.json", "/tmp/tmp.Xy12/./a b.toml",
    ]

    /// The relative paths that name the working directory or its parent. They resolve to
    /// wherever the tests run, so `URL` and `PathText` are compared on them only where
    /// both read the resolved folder the same way (`absolute`, the components). An
    /// extension is never taken from them: `URL` keeps `..` as the last segment (no
    /// extension) while `PathText` reads the resolved folder's name (`/tmp/tmp.Xy12`
    /// has one), and no caller asks, since both callers (a profile's default name, the
    /// `.iio` beside a recording) first read the path as a file, which refuses a folder.
    static let namingAFolder: Set<String> = ["", ".", ".."]

    @Test("absolute, lastComponent, deletingLastComponent and deletingExtension agree with URL", arguments: paths)
    func agreesWithURL(path: String) {
        let url = URL(fileURLWithPath: path)
        let absolute = PathText.absolute(path)
        #expect(absolute == url.path, "absolute(\(path))")
        #expect(PathText.lastComponent(absolute) == url.lastPathComponent, "lastComponent(\(path))")
        #expect(PathText.deletingLastComponent(absolute) == url.deletingLastPathComponent().path, "deletingLastComponent(\(path))")
        #expect(PathText.appending(absolute, "n.toml") == url.appendingPathComponent("n.toml").path, "appending(\(path))")
        if !Self.namingAFolder.contains(path) {
            #expect(PathText.deletingExtension(absolute) == url.deletingPathExtension().path, "deletingExtension(\(path))")
            #expect(Recording.dataPath(forMetadata: path) == url.deletingPathExtension().appendingPathExtension("iio").path, "dataPath(\(path))")
        }
    }

    @Test("directoryEntries lists what FileManager lists; nil for a file or nothing")
    func listing() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fs-pathtext-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["a.toml", ".hidden", "sub dir", "ü.toml"] {
            try Data().write(to: dir.appendingPathComponent(name))
        }
        let listed = try #require(PathText.directoryEntries(dir.path))
        #expect(listed.sorted() == (try FileManager.default.contentsOfDirectory(atPath: dir.path)).sorted())
        #expect(PathText.directoryEntries(dir.appendingPathComponent("a.toml").path) == nil)
        #expect(PathText.directoryEntries(dir.appendingPathComponent("missing").path) == nil)
    }
}
