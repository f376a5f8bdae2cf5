import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import ForceStageService

/// What `run --uinput` writes, checked on the classifier's real events.
@Suite("uinput: gestures as evdev events")
struct UInputEncoderTests {
    func event(_ kind: EventKind, _ newtons: Float, _ sample: Int64) -> ForceEvent {
        ForceEvent(kind: kind, sample: sample, timestampNs: sample * 1_000_000, forceNewtons: newtons)
    }

    @Test("peek, pop, release with peek = BTN_LEFT and pop = KEY_ENTER: the exact records, each report ending in SYN_REPORT")
    func exactRecords() {
        var e = UInputEncoder(settings: UInputSettings(peek: 0x110, pop: 28), maxNewtons: 6)
        let abs = InputCodes.evAbs, key = InputCodes.evKey, syn = InputEventRecord(0, 0, 0)
        #expect(e.encode(event(.peek, 1.2345, 1)) == [InputEventRecord(abs, 0x18, 1235), InputEventRecord(key, 0x14a, 1),
                                                   InputEventRecord(key, 0x110, 1), syn])
        #expect(e.encode(event(.pop, 2.5, 2)) == [InputEventRecord(abs, 0x18, 2500), InputEventRecord(key, 28, 1), syn])
        // A slam beyond the range is clamped to its top.
        #expect(e.encode(event(.hold, 99, 3)) == [InputEventRecord(abs, 0x18, 6000), syn])
        #expect(e.encode(event(.release, 0.3, 4)) == [InputEventRecord(key, 28, 0), InputEventRecord(key, 0x110, 0),
                                                      InputEventRecord(key, 0x14a, 0), InputEventRecord(abs, 0x18, 0), syn])
        // Nothing is down: a second release and health events write nothing.
        #expect(e.encode(event(.release, 0, 5)).isEmpty)
        #expect(e.encode(event(.stuck, 0, 6)).isEmpty)
        // Lost mid-press lets go of everything.
        _ = e.encode(event(.peek, 1, 7))
        #expect(e.encode(event(.lost, .nan, 8)).contains(InputEventRecord(key, 0x14a, 0)))
        #expect(e.keys == [0x14a, 0x110, 28])
    }

    @Test("On the bundled demo's events: every key and BTN_TOUCH that goes down comes up, pressure stays in range, each pop presses the pop key")
    func demoBalanced() throws {
        let url = packageRoot.appendingPathComponent("hardware/recordings/demo-hx711.json")
        let recording = try Recording.load(url)
        let setup = try PanelSetup(metadata: recording.metadata, file: url.path)
        let events = replay(recording, setup: setup).events
        #expect(events.contains { $0.kind == .pop })
        var encoder = UInputEncoder(settings: UInputSettings(), maxNewtons: setup.settings.popNewtons * 3)
        var down: Set<UInt16> = []
        var pops = 0, leftPresses = 0
        for ev in events {
            if ev.kind == .pop { pops += 1 }
            let records = encoder.encode(ev)
            if !records.isEmpty { #expect(records.last == InputEventRecord(0, 0, 0)) }
            for r in records {
                switch r.type {
                case InputCodes.evKey:
                    if r.value == 1 {
                        #expect(!down.contains(r.code), "\(r.code) pressed twice")
                        down.insert(r.code)
                        if r.code == InputCodes.btnLeft { leftPresses += 1 }
                    } else {
                        #expect(down.remove(r.code) != nil, "\(r.code) released while up")
                    }
                case InputCodes.evAbs:
                    #expect(r.code == InputCodes.absPressure && r.value >= 0 && r.value <= encoder.pressureMax)
                default: #expect(r.type == InputCodes.evSyn)
                }
            }
        }
        #expect(down.isEmpty, "left down at the end: \(down)")
        #expect(pops > 0 && leftPresses == pops)
    }

    @Test("struct input_event as the kernel reads it: 24 bytes, type, code and value little-endian after the timeval")
    func bytes() {
        let b = inputEventBytes([InputEventRecord(3, 0x18, -2), InputEventRecord(1, 0x14a, 1)])
        #expect(InputEventRecord.size == 24 && b.count == 48)
        #expect(Array(b[0..<16]) == [UInt8](repeating: 0, count: 16))
        #expect(Array(b[16..<24]) == [3, 0, 0x18, 0, 0xfe, 0xff, 0xff, 0xff])
        #expect(Array(b[40..<48]) == [1, 0, 0x4a, 0x01, 1, 0, 0, 0])
    }
}
