import Foundation
import TestSupport
import Testing

/// The kernel's `iio_buffer_poll` reports the device readable only once
/// `buffer/watermark` scans are in the buffer; a non-blocking `read` then
/// takes what is there. A reader inside the emulator sets the watermark as
/// libiio does (before `buffer/enable`) and counts the scans each `poll` wake
/// finds: with a watermark of 4 every wake finds whole groups of 4, with 1 the
/// paced scans arrive one by one.
@Suite("Emulator watermark", .serialized, .enabled(if: emulatorAvailable && forcestage != nil
       && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
       "needs root, `unshare -m`, python3 and the built forcestage binary (swift build)"))
struct EmulatorWatermarkTests {
    /// Enables `voltage0` and the timestamp with `buffer/length` 16 and the given watermark, then
    /// polls and reads non-blocking until `scans` scans have come; prints the scans of each wake.
    static let reader = """
    import os, select, sys
    watermark, scans = int(sys.argv[1]), int(sys.argv[2])
    d = "/sys/bus/iio/devices/iio:device0/"
    def put(path, text):
        with open(d + path, "w") as f: f.write(text + "\\n")
    put("scan_elements/in_voltage0_en", "1"); put("scan_elements/in_timestamp_en", "1")
    put("buffer/length", "16"); put("buffer/watermark", str(watermark))
    fd = os.open("/dev/iio:device0", os.O_RDONLY | os.O_NONBLOCK)
    put("buffer/enable", "1")
    p = select.poll(); p.register(fd, select.POLLIN)
    got, wakes = 0, []
    while got < scans:
        if not p.poll(2000): sys.exit("no scans for 2 s")
        try: data = os.read(fd, 16 * 64)
        except BlockingIOError: data = None
        if data == b"": sys.exit("end of file before %d scans" % scans)
        n = len(data or b"") // 16
        wakes.append(n); got += n
    put("buffer/enable", "0")
    print(" ".join(map(str, wakes)))
    """

    /// The scans each wake found, reading `scans` scans (250 scans/s) with `watermark`.
    func wakes(watermark: Int, scans: Int) throws -> [Int] {
        let dir = try temporaryDirectory()
        let script = dir.appendingPathComponent("reader.py")
        try Self.reader.write(to: script, atomically: true, encoding: .utf8)
        let r = try runProcess([forcestage!, "emulate", try writeTestRecording(in: dir).path, "--",
                                "/usr/bin/python3", script.path, String(watermark), String(scans)], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
    }

    @Test("with buffer/watermark 4, every poll wake finds whole groups of 4 scans")
    func wakesAtTheWatermark() throws {
        let w = try wakes(watermark: 4, scans: 200)
        #expect(w.reduce(0, +) >= 200, "\(w)")
        #expect(w.count >= 10, "\(w)")
        #expect(w.allSatisfy { $0 > 0 && $0 % 4 == 0 }, "\(w)")
    }

    @Test("with buffer/watermark 1, paced scans wake the reader one at a time")
    func wakesForEveryScan() throws {
        let w = try wakes(watermark: 1, scans: 200)
        #expect(w.reduce(0, +) >= 200, "\(w)")
        // 250 scans/s, each written when due: most wakes find a single scan.
        #expect(w.filter { $0 == 1 }.count > w.count / 2, "\(w)")
    }
}
