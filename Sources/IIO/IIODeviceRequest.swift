/// Where the sensor is, as the live commands name it (`--uri`, `--device`,
/// `--timeout-ms`): the one rule for opening it, shared by `forcestage`'s
/// option groups and `forcestage-service`'s own parser.
public struct IIODeviceRequest: Sendable {
    /// libiio context URI: `local:`, `ip:HOST[:PORT]`, `xml:FILE`.
    public var uri: String
    /// Device id, label or name; `nil`: the single device with buffered voltage inputs.
    public var device: String?
    /// Context timeout for a blocking refill, milliseconds.
    public var timeoutMs: UInt32

    public init(uri: String = "local:", device: String? = nil, timeoutMs: UInt32 = 1000) {
        self.uri = uri
        self.device = device
        self.timeoutMs = timeoutMs
    }

    /// The URI prefixes libiio knows.
    public static let knownSchemes = ["local:", "ip:", "xml:", "usb:", "serial:"]

    /// The `--uri` usage message, or `nil` when ``uri`` has a known scheme.
    public var uriProblem: String? {
        guard !Self.knownSchemes.contains(where: { uri.hasPrefix($0) }) else { return nil }
        return "--uri \(uri) is not a libiio URI; use local:, ip:HOST[:PORT] or xml:FILE"
    }

    /// Opens the context and finds the device.
    /// - Returns: the device, or a one-line message saying what to do.
    public func open() -> Result<IIODevice, OpenFailure> {
        let context: IIOContext
        do { context = try IIOContext(uri: uri) } catch {
            return .failure(OpenFailure(error: error, message: "cannot open libiio context \(uri) (\(error.text)); check the URI, that iiod runs for ip:, or that /sys/bus/iio exists for local:"))
        }
        do { try context.setTimeout(milliseconds: timeoutMs) } catch {
            return .failure(OpenFailure(error: error, message: error.description))
        }
        do throws(IIOError) {
            if let key = device { return .success(try context.device(key)) }
            return .success(try context.forceDevice())
        } catch {
            let available = context.devices.map { $0.displayName }
            let list = available.isEmpty ? "none" : available.joined(separator: ", ")
            if let key = device {
                return .failure(OpenFailure(error: error, message: "no IIO device \"\(key)\" in \(uri) (devices: \(list)); pass --device with an id, label or name from that list"))
            }
            return .failure(OpenFailure(error: error, message: "\(error.operation) (devices: \(list)); pass --device"))
        }
    }
}

/// A failed open: the libiio error and the message for people.
public struct OpenFailure: Error {
    public var error: IIOError
    public var message: String
}
