// A microcontroller's main loop around the Embedded Swift core: what a board
// without Linux (an STM32 or an ESP32-C3 reading four load cells) compiles
// together with Sources/Core. Benchmarks/embedded-size.sh links it with
// unused sections dropped to report the flash the core really takes; the
// board supplies the two C functions below (its ADC driver and its output).

/// Fills `bytes` bytes of one scan (four little-endian s32 words, one per
/// cell, in the spec's corner order); returns 0 when the sensor is gone.
@_extern(c, "forcestage_board_read_scan")
func boardReadScan(_ scan: UnsafeMutableRawPointer, _ bytes: Int32) -> Int32

/// Hands one event to the board (a GPIO line, a UART frame, a USB HID report).
@_extern(c, "forcestage_board_event")
func boardEvent(_ kind: UInt8, _ sample: Int64, _ newtons: Float, _ x: Float, _ y: Float)

@main
struct Firmware {
    static func main() {
        // The pipeline is one value of a few KB, held in this frame's one
        // slot and run in place through inout, never copied. Its `nil`
        // comes from a call, which writes straight into the slot (`= nil`
        // here would be built in a second slot of this frame and copied over).
        var pipeline = unconfigured()
        configure(into: &pipeline)
        guard pipeline != nil else { return }
        run(&pipeline!)
    }

    /// A four-cell plate of 24-bit converters at 500 scans/s, medium
    /// sensitivity, configured into `pipeline` (left `nil` when a step refuses).
    ///
    /// This frame holds the validated inputs only; the pipeline is built one
    /// frame deeper, in ``assemble(_:_:_:_:)``, so that its construction's
    /// temporaries are not added to this frame.
    static func configure(into pipeline: inout ForcePipeline?) {
        // Typed throws: each step's error is a small enum; a board that
        // cannot configure stays silent rather than guess.
        guard let format = try? ChannelFormat(bigEndian: false, signed: true, realBits: 24, storageBits: 32, shift: 0),
              let layout = try? ScanLayout(Channels(format: format)),
              let calibration = try? PanelCalibration(Cells(zeroRaw: 0, newtonsPerCount: 1.0 / 50_000), layout: layout),
              let parameters = try? ClassifierParameters(ClassifierSettings(sensitivity: .medium), sampleRateHz: 500)
        else { return }
        assemble(&pipeline, layout, calibration, parameters)
    }

    /// No pipeline yet, returned into the caller's slot.
    @inline(never)
    static func unconfigured() -> ForcePipeline? { nil }

    /// The pipeline of validated inputs, written into `pipeline`.
    @inline(never)
    static func assemble(_ pipeline: inout ForcePipeline?, _ layout: ScanLayout, _ calibration: PanelCalibration,
                         _ parameters: ClassifierParameters) {
        pipeline = ForcePipeline(layout: layout, calibration: calibration, parameters: parameters,
                                 timestampSlot: nil, positions: CellPositions.standard(forCells: 4))
    }

    static func run(_ pipeline: inout ForcePipeline) {
        var events = EventRing(filler: ForceEvent(kind: .release, sample: 0, timestampNs: 0, forceNewtons: 0))
        var scan = InlineArray<4, Int32>(repeating: 0)
        let bytes = Int32(pipeline.layout.scanSize)
        while true {
            let read = withUnsafeMutableBytes(of: &scan) { boardReadScan($0.baseAddress!, bytes) }
            if read == 0 { break }
            withUnsafeBytes(of: &scan) { pipeline.process(scan: $0.baseAddress!, into: &events) }
            while let event = events.popFirst() {
                boardEvent(event.kind.rawValue, event.sample, event.forceNewtons,
                           event.position?.x ?? -1, event.position?.y ?? -1)
            }
        }
        pipeline.sensorLost(timestampNs: 0, into: &events)
        while let event = events.popFirst() {
            boardEvent(event.kind.rawValue, event.sample, event.forceNewtons, -1, -1)
        }
    }
}

// The configuration takes any sequence; these two need no heap (an array
// literal would allocate, and a closure's captures too), so the board links
// without malloc.

/// Scan indices 0-3, one format.
struct Channels: Sequence, IteratorProtocol {
    let format: ChannelFormat
    var index = 0
    mutating func next() -> (index: Int, format: ChannelFormat)? {
        guard index < 4 else { return nil }
        defer { index += 1 }
        return (index: index, format: format)
    }
}

/// Layout slots 0-3, one line. It holds the line's two numbers, not a
/// `ChannelCalibration`: that value has room for a whole curve (some 390
/// bytes), which held here and in the caller would be twice that much of
/// configure()'s frame.
struct Cells: Sequence, IteratorProtocol {
    let zeroRaw: Int64
    let newtonsPerCount: Float
    var slot = 0
    mutating func next() -> (slot: Int, calibration: ChannelCalibration)? {
        guard slot < 4 else { return nil }
        defer { slot += 1 }
        return (slot: slot, calibration: .linear(zeroRaw: zeroRaw, newtonsPerCount: newtonsPerCount))
    }
}
