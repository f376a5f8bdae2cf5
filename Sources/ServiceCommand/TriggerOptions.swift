import ArgumentParser
import ForceStageIIO
import ForceStageServiceRun

/// `--trigger`, shared by the live commands (run, record, calibrate); the rule is ``TriggerChoice``'s.
public struct TriggerOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The IIO trigger to stream through: NAME of an existing one, hrtimer:HZ (made through configfs at that rate, removed at exit) or sysfs (made if none exists). The device's conversion rate is raised to keep up; everything changed is put back at exit.",
                               valueName: "NAME|hrtimer:HZ|sysfs"))
    public var trigger: String?

    public init() {}

    public func validate() throws {
        if let trigger, let problem = TriggerChoice.problem(trigger) { throw ValidationError(problem) }
    }

    /// Attaches the requested trigger to `device` (``TriggerChoice/prepare(_:_:)``).
    public func prepare(_ device: IIODevice) -> Result<IIOTriggerAttachment?, CLIMessage> {
        TriggerChoice.prepare(trigger, device)
    }

    /// ``TriggerChoice/prepare(_:_:)``.
    public static func prepare(_ trigger: String?, _ device: IIODevice) -> Result<IIOTriggerAttachment?, CLIMessage> {
        TriggerChoice.prepare(trigger, device)
    }

    /// ``TriggerChoice/scanRate(_:_:fallback:)``.
    public static func scanRate(_ attachment: IIOTriggerAttachment?, _ device: IIODevice, fallback: Double?) -> Result<Double?, CLIMessage> {
        TriggerChoice.scanRate(attachment, device, fallback: fallback)
    }
}
