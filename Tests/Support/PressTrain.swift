import ForceStageCore

/// The scan fixture the allocation and kernel tests share: one 24-bit
/// load-cell channel (zero 8 388 608, 1e-5 N a count) and a 64-bit timestamp
/// at 80 scans/s, with presses repeating every 256 scans (rest, 1.6 N past
/// peek, 3.2 N past pop, rest) and a few counts of noise.
public struct PressTrain {
    public let layout: ScanLayout
    public let pipeline: ForcePipeline
    /// `scans` whole scans.
    public let bytes: [UInt8]
    public let scans: Int

    /// - Parameter gapAt: a scan whose timestamp jumps 40 ms late (a dropped-scan gap), if any.
    public init(scans: Int = 4096, gapAt: Int? = nil) throws {
        let format = try ChannelFormat(parsing: "le:u24/32>>0")
        let ts = try ChannelFormat(parsing: "le:s64/64>>0")
        layout = try ScanLayout([(index: 0, format: format), (index: 2, format: ts)])
        let calibration = try PanelCalibration([(slot: 0, calibration: .linear(zeroRaw: 8_388_608, newtonsPerCount: 1e-5))], layout: layout)
        let parameters = try ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2.5), sampleRateHz: 80)
        pipeline = ForcePipeline(layout: layout, calibration: calibration, parameters: parameters, timestampSlot: 1)
        self.scans = scans
        var bytes = [UInt8](repeating: 0, count: scans * layout.scanSize)
        let size = layout.scanSize
        bytes.withUnsafeMutableBytes { raw in
            for i in 0..<scans {
                let phase = i % 256
                let newtons: Double = phase < 64 ? 0 : phase < 128 ? 1.6 : phase < 192 ? 3.2 : 0
                format.encode(8_388_608 + Int64(newtons / 1e-5) + Int64(i % 7), to: raw.baseAddress! + i * size)
                ts.encode(Int64(i) * 12_500_000 + (i == gapAt ? 40_000_000 : 0), to: raw.baseAddress! + i * size + 8)
            }
        }
        self.bytes = bytes
    }
}
