import ArgumentParser
import ForceStageIIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the sensor is: a libiio URI and a device.
public struct DeviceOptions: ParsableArguments, Sendable {
    @Option(help: "libiio context URI: local:, ip:HOST[:PORT] or xml:FILE.")
    public var uri: String = "local:"

    @Option(help: "Device id (iio:device0), label or name; default: the single device with buffered voltage inputs.")
    public var device: String?

    @Option(help: "Context timeout for a blocking refill, milliseconds.")
    public var timeoutMs: UInt32 = 1000

    public init() {}

    public func validate() throws {
        let known = ["local:", "ip:", "xml:", "usb:", "serial:"]
        guard known.contains(where: { uri.hasPrefix($0) }) else {
            throw ValidationError("--uri \(uri) is not a libiio URI; use local:, ip:HOST[:PORT] or xml:FILE")
        }
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
