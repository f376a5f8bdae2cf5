import ArgumentParser
import ForceStageFormats
import ForceStageIIO

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
        if let problem = request.uriProblem ?? ContextFile.problem(uri: uri) ?? IIOContext.xmlProblem(uri: uri) { throw ValidationError(problem) }
    }

    /// The options as the one request type the service's own parser also makes.
    public var request: IIODeviceRequest { IIODeviceRequest(uri: uri, device: device, timeoutMs: timeoutMs) }

    /// Opens the context and finds the device (``IIODeviceRequest/open()``).
    /// - Returns: the device, or a one-line message saying what to do.
    public func open() -> Result<IIODevice, OpenFailure> { request.open() }
}
