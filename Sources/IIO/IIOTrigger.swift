// Over 300 lines: every trigger kind (named, hrtimer, sysfs) with its configfs/sysfs set-up and undo, each undo beside its set-up.
#if canImport(Glibc)
import Glibc
#endif

/// What `--trigger` asked for: an existing trigger by name, a new hrtimer
/// trigger at a rate (made through configfs), or the sysfs trigger.
public enum TriggerRequest: Equatable, Sendable, CustomStringConvertible {
    case named(String)
    case hrtimer(Double)
    case sysfs

    /// The highest hrtimer rate accepted, scans per second.
    public static let maximumRateHz = 100_000.0

    /// Parses `NAME`, `hrtimer:HZ` or `sysfs`.
    public init(parsing text: String) throws(TriggerRequestError) {
        if text == "sysfs" { self = .sysfs; return }
        if text.hasPrefix("hrtimer:") {
            let rate = String(text.dropFirst("hrtimer:".count))
            guard let hz = Double(rate), hz.isFinite, hz > 0, hz <= Self.maximumRateHz else {
                throw TriggerRequestError(text: "--trigger \(text): the rate after hrtimer: must be a number of scans per second above 0 and at most 100000 (e.g. hrtimer:860)")
            }
            self = .hrtimer(hz)
            return
        }
        let allowed = text.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
        guard !text.isEmpty, text.utf8.count <= 64, allowed else {
            throw TriggerRequestError(text: "--trigger \(text): give a trigger's name (letters, digits, - _ . up to 64), hrtimer:HZ or sysfs")
        }
        self = .named(text)
    }

    public var description: String {
        switch self {
        case .named(let n): return n
        case .hrtimer(let hz): return "hrtimer:\(hz)"
        case .sysfs: return "sysfs"
        }
    }
}

/// A `--trigger` value that does not parse.
public struct TriggerRequestError: Error, CustomStringConvertible, Sendable {
    public let text: String
    public var description: String { text }
}

/// Setting up or attaching a trigger failed; the text says what is missing and what to do.
public struct IIOTriggerError: Error, CustomStringConvertible, Sendable {
    public let text: String
    public var description: String { text }
}

/// Triggers of the kernel's IIO sysfs/configfs ABI, used by every live command:
/// attach one to a device (making an hrtimer or sysfs trigger first when asked),
/// set the device's conversion rate to keep up, and put everything back.
///
/// Works on `local:` contexts only (the files are this machine's). Thread-safe: a
/// reader thread may attach it again after a reconnect while the main thread restores.
public final class IIOTriggerAttachment: @unchecked Sendable {
    /// The attached trigger's name, as `trigger/current_trigger` holds it.
    public let triggerName: String
    /// Scans per second the trigger fires at, when it has a rate (hrtimer); `nil` for a sysfs trigger.
    public let rateHz: Double?
    /// What was done, for a log line.
    public private(set) var actions: [String] = []

    private let sysfs: String
    private var undo: [() -> Void] = []
    private var restored = false
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    private init(sysfs: String, triggerName: String, rateHz: Double?) {
        self.sysfs = sysfs
        self.triggerName = triggerName
        self.rateHz = rateHz
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        restore()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private func locked<T>(_ body: () throws(IIOTriggerError) -> T) throws(IIOTriggerError) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Whether `device` streams only through a trigger: it has a `trigger/current_trigger` file.
    public static func needsTrigger(_ device: IIODevice, sysfs: String = "/sys") -> Bool {
        access("\(devicePath(device, sysfs))/trigger/current_trigger", F_OK) == 0
    }

    /// The trigger attached to `device` now, if any.
    public static func currentTrigger(of device: IIODevice, sysfs: String = "/sys") -> String? {
        guard let name = readText("\(devicePath(device, sysfs))/trigger/current_trigger"), !name.isEmpty else { return nil }
        return name
    }

    /// The sysfs folder of the trigger called `name`, if one exists.
    public static func triggerPath(named name: String, sysfs: String = "/sys") -> String? {
        let base = "\(sysfs)/bus/iio/devices"
        for entry in directoryEntries(base) where entry.hasPrefix("trigger") {
            if readText("\(base)/\(entry)/name") == name { return "\(base)/\(entry)" }
        }
        return nil
    }

    /// The rate of an existing trigger: its `sampling_frequency` (hrtimer triggers have one).
    public static func rate(ofTrigger name: String, sysfs: String = "/sys") -> Double? {
        guard let path = triggerPath(named: name, sysfs: sysfs),
              let text = readText("\(path)/sampling_frequency"), let hz = Double(text), hz > 0 else { return nil }
        return hz
    }

    /// The one line to print when `device` needs a trigger and has none attached; `nil` when it can stream.
    public static func missingTriggerMessage(_ device: IIODevice, sysfs: String = "/sys") -> String? {
        guard device.context.isLocal, needsTrigger(device, sysfs: sysfs), currentTrigger(of: device, sysfs: sysfs) == nil else { return nil }
        return "\(device.displayName) streams nothing until a trigger is attached and none is; pass --trigger hrtimer:RATE (e.g. hrtimer:860), --trigger sysfs, or --trigger NAME of an existing trigger"
    }

    /// Attaches what `request` asks for to `device`.
    /// - Throws: ``IIOTriggerError`` saying what is missing (a module, configfs, the trigger)
    ///   after undoing whatever it had already done.
    public static func attach(_ request: TriggerRequest, to device: IIODevice, sysfs: String = "/sys") throws(IIOTriggerError) -> IIOTriggerAttachment {
        guard device.context.isLocal else {
            throw IIOTriggerError(text: "--trigger works on local: contexts only (the trigger files are on the sensor's machine); attach the trigger there")
        }
        let current = "\(devicePath(device, sysfs))/trigger/current_trigger"
        guard access(current, F_OK) == 0 else {
            throw IIOTriggerError(text: "\(device.displayName) takes no trigger (no trigger/current_trigger); drop --trigger")
        }
        let attachment: IIOTriggerAttachment
        switch request {
        case .named(let name):
            guard triggerPath(named: name, sysfs: sysfs) != nil else {
                throw IIOTriggerError(text: "no IIO trigger named \(name) (triggers: \(triggerNames(sysfs).joined(separator: ", ").ifEmpty("none"))); pass one of them, hrtimer:HZ or sysfs")
            }
            attachment = IIOTriggerAttachment(sysfs: sysfs, triggerName: name, rateHz: rate(ofTrigger: name, sysfs: sysfs))
        case .hrtimer(let hz):
            attachment = try makeHrtimer(hz, sysfs: sysfs)
        case .sysfs:
            attachment = try findOrMakeSysfsTrigger(sysfs: sysfs)
        }
        do throws(IIOTriggerError) {
            try attachment.attach(to: device)
            if let hz = attachment.rateHz { attachment.raiseConversionRate(of: device, toAtLeast: hz) }
        } catch {
            attachment.restore()
            throw error
        }
        return attachment
    }

    /// Attaches this trigger to `device` (again, e.g. after it came back), remembering the
    /// previous one to put back. Leaves it alone when it is attached already.
    public func attach(to device: IIODevice) throws(IIOTriggerError) {
        try locked { () throws(IIOTriggerError) in try attachLocked(device) }
    }

    private func attachLocked(_ device: IIODevice) throws(IIOTriggerError) {
        guard !restored else { return }
        let path = "\(Self.devicePath(device, sysfs))/trigger/current_trigger"
        let previous = Self.readText(path) ?? ""
        if previous == triggerName { return }
        guard Self.writeText(path, triggerName) else {
            throw IIOTriggerError(text: "cannot attach trigger \(triggerName) to \(device.displayName) (\(String(cString: strerror(errno)))); is its buffer enabled by another reader?")
        }
        actions.append("attached \(triggerName) to \(device.id)")
        undo.append { _ = Self.writeText(path, previous.isEmpty ? "\n" : previous) }
    }

    /// Puts back what ``attach(_:to:sysfs:)`` changed, newest first. Safe to call twice.
    public func restore() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !restored else { return }
        restored = true
        for step in undo.reversed() { step() }
        undo.removeAll()
    }

    // MARK: - Making triggers

    private static func makeHrtimer(_ hz: Double, sysfs: String) throws(IIOTriggerError) -> IIOTriggerAttachment {
        let config = "\(sysfs)/kernel/config"
        let folder = "\(config)/iio/triggers/hrtimer"
        guard access(folder, F_OK) == 0 else {
            if access("\(config)/iio", F_OK) != 0 && directoryEntries(config).isEmpty {
                throw IIOTriggerError(text: "hrtimer triggers are made through configfs, which is not mounted: mount -t configfs none \(config) (and modprobe iio-trig-hrtimer)")
            }
            throw IIOTriggerError(text: "no hrtimer trigger support (\(folder) is missing): modprobe iio-trig-hrtimer (it needs industrialio-configfs and industrialio-sw-trigger)")
        }
        let name = "forcestage-\(getpid())"
        let path = "\(folder)/\(name)"
        guard mkdir(path, 0o755) == 0 else {
            throw IIOTriggerError(text: "cannot make hrtimer trigger \(path) (\(String(cString: strerror(errno))))")
        }
        let attachment = IIOTriggerAttachment(sysfs: sysfs, triggerName: name, rateHz: hz)
        attachment.actions.append("made hrtimer trigger \(name)")
        attachment.undo.append { _ = rmdir(path) }
        guard let trigger = triggerPath(named: name, sysfs: sysfs) else {
            attachment.restore()
            throw IIOTriggerError(text: "made \(path) but no IIO trigger \(name) appeared under \(sysfs)/bus/iio/devices")
        }
        guard writeText("\(trigger)/sampling_frequency", formatRate(hz)) else {
            let reason = String(cString: strerror(errno))
            attachment.restore()
            throw IIOTriggerError(text: "trigger \(name) refused sampling_frequency \(formatRate(hz)) (\(reason))")
        }
        attachment.actions.append("set \(name) to \(formatRate(hz)) Hz")
        return attachment
    }

    private static func findOrMakeSysfsTrigger(sysfs: String) throws(IIOTriggerError) -> IIOTriggerAttachment {
        if let existing = triggerNames(sysfs).sorted().first(where: { $0.hasPrefix("sysfstrig") }) {
            return IIOTriggerAttachment(sysfs: sysfs, triggerName: existing, rateHz: nil)
        }
        let control = "\(sysfs)/bus/iio/devices/iio_sysfs_trigger"
        guard access("\(control)/add_trigger", F_OK) == 0 else {
            throw IIOTriggerError(text: "no sysfs trigger and no way to make one (\(control) is missing): modprobe iio-trig-sysfs")
        }
        for id in 0..<64 {
            if writeText("\(control)/add_trigger", String(id)) {
                let attachment = IIOTriggerAttachment(sysfs: sysfs, triggerName: "sysfstrig\(id)", rateHz: nil)
                attachment.actions.append("made sysfs trigger sysfstrig\(id)")
                attachment.undo.append { _ = writeText("\(control)/remove_trigger", String(id)) }
                return attachment
            }
        }
        throw IIOTriggerError(text: "\(control)/add_trigger refused ids 0 to 63 (\(String(cString: strerror(errno))))")
    }

    /// Sets the device's conversion rate (`sampling_frequency`, on the device or its
    /// force channels) to the lowest available value at or above `hz`, so every trigger
    /// finds a fresh conversion; restored afterwards. Leaves devices without one alone.
    private func raiseConversionRate(of device: IIODevice, toAtLeast hz: Double) {
        let dir = Self.devicePath(device, sysfs)
        var files = ["sampling_frequency"]
        for c in device.forceChannels { files.append("in_\(c.id)_sampling_frequency") }
        let available = (Self.readText("\(dir)/sampling_frequency_available") ?? "").split(separator: " ").compactMap { Double($0) }.sorted()
        for file in files {
            let path = "\(dir)/\(file)"
            guard let old = Self.readText(path), let oldHz = Double(old), oldHz < hz else { continue }
            let target = available.first { $0 >= hz } ?? available.last ?? hz
            guard target > oldHz, Self.writeText(path, Self.formatRate(target)) else { continue }
            actions.append("set \(device.id) \(file) \(old) -> \(Self.formatRate(target))")
            undo.append { _ = Self.writeText(path, old) }
        }
    }

    // MARK: - Files

    static func devicePath(_ device: IIODevice, _ sysfs: String) -> String { "\(sysfs)/bus/iio/devices/\(device.id)" }

    static func triggerNames(_ sysfs: String) -> [String] {
        let base = "\(sysfs)/bus/iio/devices"
        return directoryEntries(base).filter { $0.hasPrefix("trigger") }.compactMap { readText("\(base)/\($0)/name") }
    }

    static func formatRate(_ hz: Double) -> String {
        hz == hz.rounded() && abs(hz) < 1e15 ? String(Int64(hz)) : String(hz)
    }

    /// The first 4 KiB of a small sysfs file, trailing whitespace dropped; `nil` when unreadable.
    static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { return nil }
        return String(decoding: bytes[0..<n], as: UTF8.self).trimmingTrailingWhitespace()
    }

    /// Writes `text` to an existing sysfs file in one write.
    static func writeText(_ path: String, _ text: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return n == bytes.count
    }

    static func directoryEntries(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

extension String {
    fileprivate func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
