import Foundation
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools
@testable import ForceStageService

@Suite("Classifier stage")
struct ClassifierStageTests {
    /// A 250 scans/s panel of one le:s16 channel plus timestamp, and a stage over it.
    func makeStage(zero: Double = 100, settings: ClassifierSettings = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5))
        throws -> (ClassifierStage, EventChannel, ServiceCounters, ScanLayout, PanelSetup) {
        let f16 = try ChannelFormat(parsing: "le:s16/16>>0"), f64 = try ChannelFormat(parsing: "le:s64/64>>0")
        let layout = try ScanLayout([(index: 4, format: f16), (index: 8, format: f64)])
        let setup = try PanelSetup(layout: layout, forceChannels: ["voltage0"], slot: { $0 == "voltage0" ? 0 : nil },
                                   forceCalibration: [ForceChannelCalibration(channel: "voltage0", mapping: .linear(zeroRaw: zero, newtonsPerCount: 0.0005))],
                                   settings: settings, sampleRateHz: 250, timestampSlot: 1)
        let counters = ServiceCounters()
        let ring = try #require(EventChannel())
        return (ClassifierStage(pipeline: setup.makePipeline(), calibration: setup.calibration, counters: counters, output: ring), ring, counters, layout, setup)
    }

    func feed(_ stage: inout ClassifierStage, layout: ScanLayout, newtons: Double, from: Int, count: Int) {
        var scan = [UInt8](repeating: 0, count: layout.scanSize)
        for i in from..<(from + count) {
            scan.withUnsafeMutableBytes { raw in
                layout[0].format.encode(100 + Int64(newtons / 0.0005) + Int64(i % 3), to: raw.baseAddress! + layout[0].offset)
                layout[1].format.encode(Int64(i) * 4_000_000, to: raw.baseAddress! + layout[1].offset)
            }
            _ = scan.withUnsafeBytes { stage.classify($0, arrivalNs: 1) }
        }
    }

    func drain(_ ring: EventChannel) -> [ServiceEvent] {
        var out: [ServiceEvent] = []
        while let e = ring.pop() { out.append(e) }
        return out
    }

    @Test("a reload with new levels keeps the press in progress; a new calibration releases it first and sample numbers keep rising")
    func reloads() throws {
        var (stage, ring, counters, layout, _) = try makeStage()
        feed(&stage, layout: layout, newtons: 0, from: 0, count: 300)
        feed(&stage, layout: layout, newtons: 1.8, from: 300, count: 50)
        #expect(drain(ring).map(\.event.kind) == [.peek])

        var raised = ClassifierSettings(peekNewtons: 1, popNewtons: 5)
        raised.holdMilliseconds = 0
        let (_, _, _, _, sameCalibration) = try makeStage(settings: raised)
        stage.apply(sameCalibration)
        #expect(drain(ring).isEmpty, "levels only: nothing emitted, the press goes on")
        feed(&stage, layout: layout, newtons: 3.5, from: 350, count: 50)
        #expect(drain(ring).isEmpty, "3.5 N does not pop under pop = 5 N")

        let (_, _, _, _, recalibrated) = try makeStage(zero: 90)
        stage.apply(recalibrated)
        let released = drain(ring)
        #expect(released.map(\.event.kind) == [.release], "the old pipeline's press ends before the new one starts")
        #expect(released.first?.event.sample == 400)
        feed(&stage, layout: layout, newtons: 0, from: 400, count: 300)
        feed(&stage, layout: layout, newtons: 3.5, from: 700, count: 50)
        let after = drain(ring)
        #expect(after.map(\.event.kind) == [.peek, .pop])
        #expect(after.allSatisfy { $0.event.sample > 700 }, "sample numbers continue across the new pipeline: \(after.map(\.event.sample))")
        #expect(counters.scans.load(ordering: .relaxed) == 750)
    }

    @Test("lost releases a press in progress and sets health; the next scan recovers")
    func lostAndRecovered() throws {
        var (stage, ring, counters, layout, _) = try makeStage()
        feed(&stage, layout: layout, newtons: 0, from: 0, count: 300)
        feed(&stage, layout: layout, newtons: 1.8, from: 300, count: 50)
        _ = drain(ring)
        stage.sensorLost(stampNs: 2)
        #expect(drain(ring).map(\.event.kind) == [.lost, .release])
        #expect(counters.healthState == .lost)
        #expect(counters.losses.load(ordering: .relaxed) == 1)
        feed(&stage, layout: layout, newtons: 0, from: 400, count: 5)
        #expect(drain(ring).map(\.event.kind) == [.recovered])
        #expect(counters.healthState == .streaming)
    }
}

@Suite("Event channel")
struct EventChannelTests {
    @Test("events cross from one thread to another in order; a full ring refuses and counts; the end always arrives")
    func acrossThreads() throws {
        let channel = try #require(EventChannel())
        var ring = EventRing()
        let total = 20_000
        let producer = Thread {
            var local = EventRing()
            for i in 0..<total {
                local.pushLast(ForceEvent(kind: .peek, sample: Int64(i), timestampNs: 0, forceNewtons: 0))
                _ = channel.push(&local, sampleBase: 0, arrivalNs: 1, monotonic: false)
            }
            channel.pushEnd()
        }
        producer.start()
        var seen: [Int64] = []
        while true {
            guard let e = channel.pop() else { usleep(50); continue }
            if e.isEnd { break }
            seen.append(e.event.sample)
        }
        #expect(seen.count + channel.overflows == total, "every event arrived or was counted: \(seen.count) + \(channel.overflows)")
        #expect(seen == seen.sorted(), "in order")
        #expect(!seen.isEmpty)

        // Nobody popping: the ring's capacity fits, the rest is refused and counted.
        let full = try #require(EventChannel())
        for i in 0..<(EventChannel.capacity + 10) {
            ring.pushLast(ForceEvent(kind: .pop, sample: Int64(i), timestampNs: 0, forceNewtons: 0))
            _ = full.push(&ring, sampleBase: 100, arrivalNs: 1, monotonic: false)
        }
        #expect(full.overflows == 10)
        #expect(full.pop()?.event.sample == 100, "sample numbers offset by the base")
    }
}
