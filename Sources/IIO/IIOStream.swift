import ForceStageCore

/// Which channels a stream enables and where they sit in a scan.
public struct IIOStreamChannels {
    /// The enabled channels in ascending scan index (layout slot order).
    public let channels: [IIOChannel]
    /// The kernel's layout of those channels, for decoding
    /// `iio_buffer_start..end` directly.
    public let layout: ScanLayout
    /// The layout slot of the timestamp channel, if enabled.
    public let timestampSlot: Int?
    /// Ids of the channels that carry force, in the order asked for.
    public let forceIDs: [String]

    /// The layout slots of the force channels, in ``forceIDs`` order.
    public var forceSlots: [Int] { forceIDs.compactMap { slot(of: $0) } }

    /// What `channel` carries in this stream: the one rule every live command records and classifies by.
    public func role(of channel: IIOChannel) -> IIOChannelRole {
        if channel.isTimestamp { return .timestamp }
        return forceIDs.contains(channel.id) ? .force : .other
    }

    /// The layout slot of the channel with id `id`.
    public func slot(of id: String) -> Int? { channels.firstIndex { $0.id == id } }
}

/// What a channel of a stream carries.
public enum IIOChannelRole: Sendable {
    /// Force (a calibrated input the classifier reads).
    case force
    /// The scan's timestamp, nanoseconds.
    case timestamp
    /// Enabled but neither.
    case other
}

/// Why a stream could not be set up.
public enum IIOStreamError: Error, CustomStringConvertible {
    case iio(IIOError)
    case noSuchChannel(String, device: String, available: [String])
    case notScanElement(String)
    case format(String, FormatError)
    case layout(LayoutError)
    case sizeMismatch(expected: Int, libiio: Int)

    public var description: String {
        switch self {
        case .iio(let e): return e.description
        case .noSuchChannel(let id, let device, let available):
            return "device \(device) has no channel \"\(id)\" (it has: \(available.joined(separator: ", ")))"
        case .notScanElement(let id): return "channel \(id) cannot be buffered (no scan_elements entry)"
        case .format(let id, let e): return "channel \(id): \(e.message)"
        case .layout(let e): return e.message
        case .sizeMismatch(let expected, let libiio):
            return "scan layout of \(expected) bytes disagrees with libiio's sample size \(libiio)"
        }
    }
}

extension IIODevice {
    /// Enables exactly the channels with the given ids (plus the timestamp
    /// when `timestamp` is true and the device has one), disables the rest,
    /// and lays out the scan. Calls `iio_channel_enable` / `iio_channel_disable`
    /// and checks the layout against `iio_device_get_sample_size`.
    public func enableChannels(_ ids: [String], timestamp: Bool) throws(IIOStreamError) -> IIOStreamChannels {
        let all = channels
        var wanted: [IIOChannel] = []
        for id in ids {
            guard let c = all.first(where: { $0.id == id && !$0.isOutput }) else {
                throw .noSuchChannel(id, device: displayName, available: all.filter { $0.isScanElement }.map { $0.id })
            }
            guard c.isScanElement else { throw .notScanElement(id) }
            if !wanted.contains(where: { $0.id == id }) { wanted.append(c) }
        }
        if timestamp, let ts = timestampChannel, !wanted.contains(where: { $0.id == ts.id }) { wanted.append(ts) }
        for c in all where c.isScanElement { c.disable() }
        for c in wanted { c.enable() }
        wanted.sort { $0.scanIndex < $1.scanIndex }
        var entries: [(index: Int, format: ChannelFormat)] = []
        for c in wanted {
            do { entries.append((c.scanIndex, try c.format())) } catch { throw .format(c.id, error) }
        }
        let layout: ScanLayout
        do { layout = try ScanLayout(entries) } catch { throw .layout(error) }
        switch scanSize() {
        case .success(let size) where size != layout.scanSize: throw .sizeMismatch(expected: layout.scanSize, libiio: size)
        case .failure(let e): throw .iio(e)
        default: break
        }
        return IIOStreamChannels(channels: wanted, layout: layout,
                                 timestampSlot: wanted.firstIndex { $0.isTimestamp }, forceIDs: ids)
    }
}
