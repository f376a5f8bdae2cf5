import ForceStageCore
import ForceStageFormats

/// A recording as the same panel would give it with each load cell wired the
/// other way round (negative gain): every force channel's raw word inverted within
/// its bits (bitwise NOT for a signed word, `maximum - raw` for an unsigned one, so
/// the rails swap exactly), each linear calibration's zero inverted to match and
/// its gain negated. The force in newtons, and so the labels, stay as they were.
public enum NegativeGain {
    /// Why a recording cannot be turned round.
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The negative-gain twin of `recording`, with `label` as its device label.
    ///
    /// - Throws: ``Refusal`` when the recording has no calibration or a force channel's is
    ///   a curve (a force-sensing resistor, whose resistance has no wiring to turn round).
    public static func twin(of recording: Recording, label: String?) throws -> Recording {
        var metadata = recording.metadata
        guard var calibration = metadata.calibration else {
            throw Refusal(description: "the recording has no calibration to turn round")
        }
        var force: [ForceChannelCalibration] = []
        for entry in calibration.force {
            guard case .linear(let zero, let gain) = entry.mapping,
                  let channel = metadata.channels.first(where: { $0.id == entry.channel }) else {
                throw Refusal(description: "channel \(entry.channel) is calibrated with a curve (a force-sensing resistor); negative gain is a load cell's wiring")
            }
            force.append(ForceChannelCalibration(channel: entry.channel,
                                                 mapping: .linear(zeroRaw: Double(inverted(Int64(zero.rounded()), channel.format)),
                                                                  newtonsPerCount: -gain),
                                                 position: entry.position))
        }
        calibration.force = force
        metadata.calibration = calibration
        metadata.deviceLabel = label
        var scans = recording.scans
        let layout = recording.layout
        let slots = metadata.forceChannels.compactMap { layout.slot(forIndex: $0.index) }
        scans.withUnsafeMutableBytes { raw in
            for i in 0..<recording.scanCount {
                for slot in slots {
                    let field = layout[slot]
                    let p = raw.baseAddress! + i * layout.scanSize + field.offset
                    field.format.encode(inverted(field.format.decode(UnsafeRawPointer(p)), field.format), to: p)
                }
            }
        }
        return try Recording(metadata: metadata, scans: scans)
    }

    /// `value` turned round within `format`'s bits.
    static func inverted(_ value: Int64, _ format: ChannelFormat) -> Int64 {
        format.signed ? ~value : format.maximumRaw - value
    }
}
