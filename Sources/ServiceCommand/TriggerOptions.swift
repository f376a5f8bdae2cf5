import ArgumentParser
import ForceStageIIO

/// `--trigger`, shared by the live commands (run, record, calibrate).
public struct TriggerOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The IIO trigger to stream through: NAME of an existing one, hrtimer:HZ (made through configfs at that rate, removed at exit) or sysfs (made if none exists). The device's conversion rate is raised to keep up; everything changed is put back at exit.",
                               valueName: "NAME|hrtimer:HZ|sysfs"))
    public var trigger: String?

    public init() {}

    public func validate() throws {
        if let trigger { do { _ = try TriggerRequest(parsing: trigger) } catch { throw ValidationError(error.description) } }
    }

    /// Attaches the requested trigger to `device`; with none requested, checks that a
    /// device which needs a trigger has one.
    /// - Returns: the attachment (restore it at exit), `nil` when nothing was asked, or the line to print.
    public func prepare(_ device: IIODevice) -> Result<IIOTriggerAttachment?, CLIMessage> {
        Self.prepare(trigger, device)
    }

    /// ``prepare(_:)`` for a `--trigger` value (`nil`: none given).
    public static func prepare(_ trigger: String?, _ device: IIODevice) -> Result<IIOTriggerAttachment?, CLIMessage> {
        guard let trigger else {
            if let missing = IIOTriggerAttachment.missingTriggerMessage(device) { return .failure(CLIMessage(missing)) }
            return .success(nil)
        }
        do {
            let request = try TriggerRequest(parsing: trigger)
            return .success(try IIOTriggerAttachment.attach(request, to: device))
        } catch let e as TriggerRequestError {
            return .failure(CLIMessage(e.description))
        } catch let e as IIOTriggerError {
            return .failure(CLIMessage(e.description))
        } catch {
            return .failure(CLIMessage("\(error)"))
        }
    }

    /// The scan rate a recording or the classifier should use when the device streams
    /// through a trigger: the trigger's rate (hrtimer), else `fallback` (--rate).
    /// `.success(nil)` when no trigger is involved, or one attached before us has no rate
    /// (use the device's sampling_frequency); a failure when --trigger gave a trigger without a rate.
    public static func scanRate(_ attachment: IIOTriggerAttachment?, _ device: IIODevice, fallback: Double?) -> Result<Double?, CLIMessage> {
        guard device.context.isLocal, let name = attachment?.triggerName ?? IIOTriggerAttachment.currentTrigger(of: device) else {
            return .success(nil)
        }
        if let hz = attachment?.rateHz ?? IIOTriggerAttachment.rate(ofTrigger: name) { return .success(hz) }
        if let fallback { return .success(fallback) }
        // A trigger attached before us without a rate of its own: the device's sampling_frequency is the best guess left.
        if attachment == nil { return .success(nil) }
        return .failure(CLIMessage("\(device.displayName) streams at the rate its trigger \(name) fires, and that trigger has no rate of its own (a sysfs trigger fires when written); pass --rate with the scans per second"))
    }
}

/// A message for people, as an error.
public struct CLIMessage: Error, CustomStringConvertible {
    public var description: String
    public init(_ text: String) { description = text }
}
