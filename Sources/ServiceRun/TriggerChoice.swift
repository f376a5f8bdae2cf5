import ForceStageIIO

/// `--trigger` for every live command (run, record, calibrate): what the value
/// asks for, attaching it, and the scan rate it implies. `forcestage`'s
/// `TriggerOptions` and `forcestage-service`'s own parser both come here.
public enum TriggerChoice {
    /// The usage message for a `--trigger` value that does not parse, else `nil`.
    public static func problem(_ trigger: String) -> String? {
        do { _ = try TriggerRequest(parsing: trigger) } catch { return error.description }
        return nil
    }

    /// Attaches the requested trigger (`nil`: none given) to `device`; with none
    /// requested, checks that a device which needs a trigger has one.
    /// - Returns: the attachment (restore it at exit), `nil` when nothing was asked, or the line to print.
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
