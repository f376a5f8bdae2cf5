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
    ]

    @Test("absolute, lastComponent, deletingLastComponent and deletingExtension agree with URL", arguments: paths)
    func agreesWithURL(path: String) {
        let url = URL(fileURLWithPath: path)
        let absolute = PathText.absolute(path)
        #expect(absolute == url.path, "absolute(\(path))")
        #expect(PathText.lastComponent(absolute) == url.lastPathComponent, "lastComponent(\(path))")
        #expect(PathText.deletingLastComponent(absolute) == url.deletingLastPathComponent().path, "deletingLastComponent(\(path))")
        #expect(PathText.deletingExtension(absolute) == url.deletingPathExtension().path, "deletingExtension(\(path))")
        #expect(PathText.appending(absolute, "n.toml") == url.appendingPathComponent("n.toml").path, "appending(\(path))")
        // `.`, `..` and the empty path name the directory itself, which URL keeps as a dot
        // segment (`/cwd/..iio`); a recording is never a directory (its metadata read
        // refuses one first, naming it), so those are left out.
        if !["", ".", ".."].contains(path) {
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
