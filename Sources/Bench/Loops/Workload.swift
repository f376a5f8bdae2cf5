import CIIO
import ForceStageCore
import ForceStageFormats
import ForceStageGestures
import ForceStageTools
import Foundation

/// Why a workload could not be built.
public struct WorkloadError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// A recording held in memory in every form the measured loops read: the
/// scans as the kernel delivers them, the calibrated force per scan and the
/// timestamps, plus a libiio context with the same channels for the
/// `iio_channel_convert` baseline.
///
/// Each `run…` function makes one pass over the whole recording and returns
/// a value derived from all of it, so the optimiser cannot drop the work.
public final class Workload: @unchecked Sendable {
    public let name: String
    public let recording: Recording
    public let setup: PanelSetup
    public let scanCount: Int
    /// The raw scans.
    public let scans: UnsafeMutableRawBufferPointer
    /// The calibrated panel force per scan.
    public let forces: UnsafeMutableBufferPointer<Float>
    /// The timestamp per scan.
    public let timestamps: UnsafeMutableBufferPointer<Int64>
    private let context: OpaquePointer
    /// The force channels in libiio, with their byte offsets and linear scale.
    private let iioChannels: [(channel: OpaquePointer, offset: Int, zero: Int64, scale: Float, width: Int, signed: Bool)]
    /// The gesture loop's regions, made once (a measured pass allocates nothing).
    public let benchRegions: [Region]
    /// `setup` without cell positions (what positions cost is the difference).
    private let setupWithoutPositions: PanelSetup

    /// Holds `recording` in memory with `setup` (default: its own calibration).
    public init(_ recording: Recording, name: String, setup: PanelSetup? = nil) throws {
        self.name = name
        self.recording = recording
        let setup = try setup ?? PanelSetup(metadata: recording.metadata, file: name)
        self.setup = setup
        scanCount = recording.scanCount
        let size = setup.layout.scanSize
        let count = recording.scanCount
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count * size), alignment: 16)
        recording.scans.withUnsafeBytes { bytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<(count * size)])) }
        scans = bytes
        forces = .allocate(capacity: max(1, scanCount))
        timestamps = .allocate(capacity: max(1, scanCount))
        let probe = setup.makePipeline()
        for i in 0..<scanCount {
            let scan = UnsafeRawPointer(scans.baseAddress! + i * size)
            forces[i] = probe.force(scan: scan)
            timestamps[i] = probe.timestamp(scan: scan, sample: Int64(i))
        }
        // The same channels, formats and order, as a libiio context.
        var xml = #"<?xml version="1.0" encoding="utf-8"?><context name="xml" description="forcestage bench">"#
        xml += #"<device id="iio:device0" name="bench">"#
        let force = recording.metadata.forceChannels
        for (i, c) in force.enumerated() {
            let format = c.format.text.replacingOccurrences(of: ">", with: "&gt;")
            xml += #"<channel id="voltage\#(i)" type="input"><scan-element index="\#(c.index)" format="\#(format)" scale="1.0" /></channel>"#
        }
        xml += "</device></context>"
        // libxml2 prints "validity error: no DTD found" for a context without
        // libiio's DTD; the context is fine, so that line is kept off stderr.
        let savedStderr = dup(2)
        let devNull = open("/dev/null", O_WRONLY)
        if savedStderr >= 0 && devNull >= 0 { dup2(devNull, 2) }
        let created = xml.withCString { iio_create_xml_context_mem($0, strlen($0)) }
        if savedStderr >= 0 && devNull >= 0 { dup2(savedStderr, 2) }
        if savedStderr >= 0 { close(savedStderr) }
        if devNull >= 0 { close(devNull) }
        guard let ctx = created else {
            throw WorkloadError(description: "\(name): libiio refused the channel formats as an XML context")
        }
        context = ctx
        guard let dev = iio_context_find_device(ctx, "bench") else {
            throw WorkloadError(description: "\(name): libiio lost the device of its own XML context")
        }
        var list: [(OpaquePointer, Int, Int64, Float, Int, Bool)] = []
        for (i, c) in force.enumerated() {
            guard let chn = iio_device_find_channel(dev, "voltage\(i)", false),
                  let slot = (0..<setup.layout.count).first(where: { setup.layout[$0].index == c.index }) else {
                throw WorkloadError(description: "\(name): channel \(c.id) is not in the layout")
            }
            // The baseline converts with the channel's linear calibration (a curve
            // is linearised through its ends: the baseline's cost is the conversion).
            let cal = setup.calibration.calibration(i)
            let zero: Int64, scale: Float
            switch cal {
            case .linear(let z, let s):
                zero = z
                scale = s
            case .curve(let curve):
                let first = curve[0], last = curve[curve.count - 1]
                zero = first.raw
                scale = (last.newtons - first.newtons) / Float(max(1, last.raw - first.raw))
            }
            list.append((chn, setup.layout[slot].offset, zero, scale, c.format.storageBytes, c.format.signed))
        }
        iioChannels = list
        benchRegions = Self.benchRegions(setup)
        var bare = setup
        bare.positions = nil
        setupWithoutPositions = bare
    }

    deinit {
        iio_context_destroy(context)
        scans.deallocate()
        forces.deallocate()
        timestamps.deallocate()
    }

    /// The memory-bound limit: a vectorised sum of the per-scan forces.
    public func runSum() -> Float {
        var acc = SIMD16<Float>()
        let n = scanCount / 16 * 16
        let raw = UnsafeRawPointer(forces.baseAddress!)
        var i = 0
        while i < n {
            acc += raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<Float>.self)
            i += 16
        }
        var total = acc.sum()
        while i < scanCount {
            total += forces[i]
            i += 1
        }
        return total
    }

    /// What a libiio user would otherwise write: `iio_channel_convert` per
    /// sample, then the channel's scale, summed into the panel force.
    public func runIIOConvert() -> Float {
        let size = setup.layout.scanSize
        var total: Float = 0
        var out: Int64 = 0
        for i in 0..<scanCount {
            let scan = UnsafeRawPointer(scans.baseAddress! + i * size)
            var force: Float = 0
            for c in iioChannels {
                out = 0
                withUnsafeMutableBytes(of: &out) { iio_channel_convert(c.channel, $0.baseAddress, scan + c.offset) }
                let value: Int64
                switch (c.width, c.signed) {
                case (1, true): value = Int64(Int8(truncatingIfNeeded: out))
                case (2, true): value = Int64(Int16(truncatingIfNeeded: out))
                case (4, true): value = Int64(Int32(truncatingIfNeeded: out))
                case (1, false): value = Int64(UInt8(truncatingIfNeeded: out))
                case (2, false): value = Int64(UInt16(truncatingIfNeeded: out))
                case (4, false): value = Int64(UInt32(truncatingIfNeeded: out))
                default: value = out
                }
                force += Float(value - c.zero) * c.scale
            }
            total += force
        }
        return total
    }

    /// Classification alone, over the precomputed forces, through the block path.
    public func runClassify(events sink: inout EventSink) -> Int {
        var classifier = Classifier(parameters: setup.parameters)
        var ring = EventRing()
        var start = 0
        while start < scanCount {
            start += classifier.step(forces: forces.baseAddress! + start, timestamps: timestamps.baseAddress! + start,
                                     count: scanCount - start, firstSample: Int64(start), into: &ring)
            sink.drain(&ring)
        }
        return Int(classifier.fastBlocks)
    }

    /// Classification alone, one scan at a time (the path before the block fast path).
    public func runClassifyPerScan(events sink: inout EventSink) -> Int {
        var classifier = Classifier(parameters: setup.parameters)
        var ring = EventRing()
        for i in 0..<scanCount {
            classifier.step(force: forces[i], sample: Int64(i), timestampNs: timestamps[i], into: &ring)
            if ring.count > 32 { sink.drain(&ring) }
        }
        sink.drain(&ring)
        return Int(classifier.state.rawValue)
    }

    /// Decode, calibrate, health checks and classification of the raw scans, batched;
    /// with `positions` false, the pipeline is made without the panel's cell positions.
    public func runDecodeClassify(events sink: inout EventSink, positions: Bool = true) -> Int {
        var pipeline = positions ? setup.makePipeline() : setupWithoutPositions.makePipeline()
        var ring = EventRing()
        let total = scanCount * setup.layout.scanSize
        var offset = 0
        while offset < total {
            offset += pipeline.process(scans: UnsafeRawBufferPointer(rebasing: scans[offset..<total]), into: &ring)
            sink.drain(&ring)
        }
        return Int(pipeline.counters.scans)
    }

    /// Decode and classify one scan at a time (the path before the block fast path).
    public func runDecodeClassifyPerScan(events sink: inout EventSink) -> Int {
        var pipeline = setup.makePipeline()
        var ring = EventRing()
        let size = setup.layout.scanSize
        for i in 0..<scanCount {
            pipeline.process(scan: scans.baseAddress! + i * size, into: &ring)
            if ring.count > 32 { sink.drain(&ring) }
        }
        sink.drain(&ring)
        return Int(pipeline.counters.scans)
    }
}

extension Workload {
    /// The regions the gesture loop runs with: the plate's left half (its own
    /// levels, 10 % below the panel's, so the classifier is reconfigured as the
    /// finger crosses) and its right half. None on a panel without positions.
    static func benchRegions(_ setup: PanelSetup) -> [Region] {
        guard setup.positions != nil else { return [] }
        let s = setup.settings
        return [Region(name: "left", minX: 0, minY: 0, maxX: 0.5, maxY: 1, peekNewtons: Double(s.peekNewtons) * 0.9,
                       popNewtons: Double(s.popNewtons) * 0.9, actions: ["open", "share"]),
                Region(name: "right", minX: 0.5, minY: 0, maxX: 1, maxY: 1)]
    }

    /// Decode and classify through the gesture layer, as `run` does with regions
    /// (quiet blocks through the fast path, one scan at a time around presses).
    public func runDecodeClassifyGestures(events sink: inout EventSink) -> Int {
        var pipeline = setup.makePipeline()
        var driver = GestureDriver(regions: benchRegions, settings: setup.settings, sampleRateHz: setup.sampleRateHz)
        var ring = EventRing()
        var gestures = 0
        let size = setup.layout.scanSize
        var i = 0
        while i < scanCount {
            i &+= driver.advance(scans: scans.baseAddress! + i * size, count: scanCount - i, size: size, pipeline: &pipeline, events: &ring)
            gestures &+= driver.output.count
        }
        return gestures &+ Int(pipeline.counters.scans)
    }
}

/// Where measured loops put their events: counted, never stored, so a
/// measured pass allocates nothing.
public struct EventSink {
    public private(set) var count = 0
    public private(set) var overflows: UInt64 = 0

    public init() {}

    /// Empties `ring` into the sink; `overflows` is the ring's own count (rings are per pass).
    @inline(__always)
    public mutating func drain(_ ring: inout EventRing) {
        overflows = ring.overflowCount
        while ring.popFirst() != nil { count &+= 1 }
    }
}
