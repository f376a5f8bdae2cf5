import Foundation
import TestSupport
import Testing

/// One evdev record as evtest prints it: "Event: time ..., type 1 (EV_KEY), code 330 (BTN_TOUCH), value 1",
/// or the report separator "Event: time ..., -------------- SYN_REPORT ------------" as (0, 0, 0).
struct EvtestRecord: Equatable, CustomStringConvertible {
    var type: Int, code: Int, value: Int
    var description: String { type == 0 ? "SYN" : "\(type):\(code)=\(value)" }
}

/// What evtest printed: the device's name, its supported codes per type, each axis's
/// parameters (Value, Min, Max, Fuzz, Flat, Resolution), and the events read.
struct EvtestOutput {
    var name: String?
    var codes: [Int: [Int]] = [:]
    var axes: [Int: [String: Int]] = [:]
    var records: [EvtestRecord] = []

    init(_ text: String) {
        var type = -1, axis = -1
        for line in text.split(separator: "\n").map(String.init) {
            if let m = line.firstMatch(of: /^Input device name: "(.*)"$/) { name = String(m.1) }
            else if let m = line.firstMatch(of: /^  Event type ([0-9]+) \(/) { type = Int(m.1)!; codes[type] = []; axis = -1 }
            else if let m = line.firstMatch(of: /^    Event code ([0-9]+) \(/) { axis = Int(m.1)!; codes[type, default: []].append(axis) }
            else if type == 3, axis >= 0, let m = line.firstMatch(of: /^      (Value|Min|Max|Fuzz|Flat|Resolution) +(-?[0-9]+)$/) {
                axes[axis, default: [:]][String(m.1)] = Int(m.2)!
            } else if let m = line.firstMatch(of: /^Event: time [0-9.]+, type ([0-9]+) \([A-Z_]+\), code ([0-9]+) \([A-Z_0-9]+\), value (-?[0-9]+)$/) {
                records.append(EvtestRecord(type: Int(m.1)!, code: Int(m.2)!, value: Int(m.3)!))
            } else if line.hasPrefix("Event: time "), line.hasSuffix("SYN_REPORT ------------") {
                records.append(EvtestRecord(type: 0, code: 0, value: 0))
            }
        }
    }
}

/// What a reader of the device must see for `run`'s events with peek = BTN_LEFT, pop = KEY_ENTER,
/// no hold key: written from the documented mapping (ABS_PRESSURE in mN, BTN_TOUCH while
/// pressed, each gesture's key down until release, keys up in reverse, pressure 0, SYN_REPORT),
/// then passed through what the kernel's input core does to it: an axis value is smoothed
/// by its fuzz (input_defuzz_abs_event) and dropped when it does not change, a key that
/// does not change is dropped, and a report left with nothing but SYN_REPORT is not delivered.
func expectedEvdev(events: [(kind: String, newtons: Double)], maxCounts: Int, fuzz: Int,
                   peekKey: Int? = 272, popKey: Int? = 28) -> [EvtestRecord] {
    let key = 1, abs = 3, touch = 330
    var out: [EvtestRecord] = [], pressure = 0, touching = false, down: [Int] = []
    func defuzz(_ value: Int) -> Int {
        // drivers/input/input.c, input_defuzz_abs_event
        if value > pressure - fuzz / 2 && value < pressure + fuzz / 2 { return pressure }
        if value > pressure - fuzz && value < pressure + fuzz { return (pressure * 3 + value) / 4 }
        if value > pressure - fuzz * 2 && value < pressure + fuzz * 2 { return (pressure + value) / 2 }
        return value
    }
    for e in events {
        var report: [EvtestRecord] = []
        func setPressure(_ raw: Int) {
            let v = defuzz(raw)
            if v != pressure { pressure = v; report.append(EvtestRecord(type: abs, code: 24, value: v)) }
        }
        switch e.kind {
        case "peek", "pop", "hold":
            setPressure(min(maxCounts, max(0, Int((e.newtons * 1000).rounded()))))
            if !touching { touching = true; report.append(EvtestRecord(type: key, code: touch, value: 1)) }
            let k = e.kind == "peek" ? peekKey : e.kind == "pop" ? popKey : nil
            if let k, !down.contains(k) { down.append(k); report.append(EvtestRecord(type: key, code: k, value: 1)) }
        case "release", "lost":
            for k in down.reversed() { report.append(EvtestRecord(type: key, code: k, value: 0)) }
            down.removeAll()
            if touching { report.append(EvtestRecord(type: key, code: touch, value: 0)) }
            touching = false
            setPressure(0)
        default: continue
        }
        if !report.isEmpty { out += report + [EvtestRecord(type: 0, code: 0, value: 0)] }
    }
    return out
}

/// The guest runs the host's evtest (Debian's package).
let evtestInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/evtest")

/// Each event line's kind and force.
func kindsAndForces(_ text: String) -> [(kind: String, newtons: Double)] {
    lines(text).compactMap { line in
        guard let k = line.firstMatch(of: /"event":"([a-z]+)"/), let f = line.firstMatch(of: /"forceNewtons":(-?[0-9.]+)/) else { return nil }
        return (String(k.1), Double(f.1)!)
    }
}

extension RealKernelTests {
    @Test("emulate replaying a recording into run --uinput (default map: pop = BTN_LEFT) on the real kernel: evtest shows each press down and up")
    func uinputFromEmulator() throws {
        try #require(evtestInstalled, "evtest is not installed: bash hardware/setup.sh --kernel installs it")
        let s = try RealKernelSession.get()
        #expect(s.text("emu-uinput.rc") == "0", "\(s.text("emu-uinput.err").suffix(800))")
        try #require(s.text("emu-uinput.node").hasPrefix("/dev/input/event"), "\(s.text("emu-uinput.err").suffix(800))")
        let ev = EvtestOutput(s.text("emu-evtest.txt"))
        #expect(ev.name == "ForceStage test-panel", "named after the panel's label: \(s.text("emu-evtest.txt").prefix(400))")
        #expect(ev.codes[1]?.sorted() == [272, 330], "BTN_LEFT and BTN_TOUCH: \(ev.codes)")
        // Default range and fuzz from the recording's levels: max 3 x pop = 7.5 N, fuzz and flat 2 % of peek = 20 mN.
        #expect(ev.axes[24] == ["Value": 0, "Min": 0, "Max": 7500, "Fuzz": 20, "Flat": 20, "Resolution": 1000], "\(ev.axes)")
        let events = kindsAndForces(s.text("emu-uinput.events"))
        let keys = ev.records.filter { $0.type == 1 }.map { "\($0.code)=\($0.value)" }
        #expect(keys == ["330=1", "272=1", "272=0", "330=0", "330=1", "330=0"], "the pop presses BTN_LEFT, the peek only touches: \(keys)")
        let expected = expectedEvdev(events: events, maxCounts: 7500, fuzz: 20, peekKey: nil, popKey: 272)
        func shape(_ r: [EvtestRecord]) -> [String] { r.map { $0.type == 3 ? "ABS_PRESSURE" : $0.description } }
        #expect(shape(ev.records) == shape(expected), "evtest:\n\(ev.records)\nexpected:\n\(expected)")
    }

    @Test("run --uinput on the real driver: evtest reads the panel's device (name, keys, ABS_PRESSURE range, fuzz, flat, resolution), the press's events in order, the device gone at exit; each pop taps a uinput FF_RUMBLE actuator once")
    func uinputThroughEvdev() throws {
        try #require(evtestInstalled, "evtest is not installed: bash hardware/setup.sh --kernel installs it")
        let s = try RealKernelSession.get()
        #expect(s.text("uinput.rc") == "0", "\(s.text("uinput.err").suffix(800))")
        let node = s.text("uinput.node")
        try #require(node.hasPrefix("/dev/input/event"), "run --uinput logged no uinput.device: \(s.text("uinput.err").suffix(800))")
        let ev = EvtestOutput(s.text("evtest.txt"))
        print("real kernel uinput: \(node), evtest exit \(s.text("evtest.rc")) (\(s.text("evtest.err").suffix(120))), \(ev.records.count) records")
        #expect(ev.name == "ForceStage kernel panel", "\(s.text("evtest.txt").prefix(600))")
        #expect(ev.codes[1]?.sorted() == [28, 272, 330], "EV_KEY: KEY_ENTER, BTN_LEFT, BTN_TOUCH and nothing else: \(ev.codes)")
        #expect(ev.codes[3] == [24], "EV_ABS: ABS_PRESSURE only: \(ev.codes)")
        #expect(ev.axes[24] == ["Value": 0, "Min": 0, "Max": 5000, "Fuzz": 30, "Flat": 30, "Resolution": 1000],
                "max_newtons 5 and fuzz_newtons 0.03 in mN, 1000 counts per newton: \(ev.axes)")

        // The run's own events, the documented mapping of them, and what evdev delivered.
        let events = kindsAndForces(s.text("uinput.events"))
        #expect(events.map(\.kind).filter { ["peek", "pop", "release", "lost"].contains($0) } == ["peek", "pop", "release", "peek", "release"], "\(events)")
        let expected = expectedEvdev(events: events, maxCounts: 5000, fuzz: 30)
        func shape(_ r: [EvtestRecord]) -> [String] { r.map { $0.type == 3 ? "ABS_PRESSURE" : $0.description } }
        #expect(shape(ev.records) == shape(expected), "evtest:\n\(ev.records)\nexpected:\n\(expected)")
        let seen = ev.records.filter { $0.type == 3 }.map(\.value), want = expected.filter { $0.type == 3 }.map(\.value)
        // One count of slack: the events print 4 decimals of the Float the device was given.
        #expect(seen.count == want.count && zip(seen, want).allSatisfy { Swift.abs($0 - $1) <= 1 }, "pressures \(seen) vs \(want)")
        let keys = ev.records.filter { $0.type == 1 }.map { "\($0.code)=\($0.value)" }
        #expect(keys == ["330=1", "272=1", "28=1", "28=0", "272=0", "330=0", "330=1", "272=1", "272=0", "330=0"], "\(keys)")
        #expect(s.text("evtest.rc") != "124", "evtest still reading after 90 s: the device was not removed")
        #expect(!lines(s.text("uinput-after.txt")).contains(String(node.dropFirst("/dev/input/".count))), "\(node) still there after exit")

        // Haptics: the profile's [haptics] names the stand-in actuator (hardware/kernel/ff-actuator.py).
        let log = lines(s.text("actuator.log"))
        #expect(s.text("actuator.rc") == "0", "\(s.text("actuator.err"))")
        let uploads = log.filter { $0.hasPrefix("upload ") }, erases = log.filter { $0.hasPrefix("erase ") }
        let plays = log.filter { $0.hasPrefix("play ") && !$0.contains("value=0") }
        #expect(uploads.count == 1 && uploads.first?.contains("type=0x50 length_ms=20") == true, "one FF_RUMBLE of 20 ms: \(log)")
        #expect(uploads.first.map { !$0.contains("strong=0 ") } ?? false, "a strong magnitude: \(uploads)")
        #expect(plays.count == events.filter { $0.kind == "pop" }.count, "one tap per pop, none for a peek: \(log)")
        #expect(erases.count == 1, "the effect erased at exit: \(log)")
        // The tap's kernel time (CLOCK_MONOTONIC) against the pop's scan timestamp (the same clock).
        let popNs = lines(s.text("uinput.events")).first { $0.contains("\"event\":\"pop\"") }?
            .firstMatch(of: /"timestampNs":([0-9]+)/).flatMap { Int64($0.1) }
        let playS = plays.first?.firstMatch(of: /\ t=([0-9.]+)$/).flatMap { Double($0.1) }
        if let popNs, let playS {
            let ms = (playS - Double(popNs) / 1e9) * 1000
            print("real kernel haptics: pop scan to the actuator's play request \(String(format: "%.2f", ms)) ms (QEMU TCG, lockstep feed)")
            #expect(ms > 0 && ms < 1000, "the tap follows the pop's scan: \(ms) ms")
        } else {
            Issue.record("no pop timestamp or play time: \(plays), \(s.text("uinput.events"))")
        }
    }
}
