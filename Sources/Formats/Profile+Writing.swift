#if canImport(Glibc)
import Glibc
#endif
import ForceStageCore

extension Profile {
    /// The profile as a commented TOML file that ``Profile/parse(_:file:)`` reads back
    /// to the same values. `header` lines become comments at the top (calibrate
    /// writes its one-line reasons there, so the file says why each number is what it is).
    public func tomlText(header: [String] = []) -> String {
        var out = "# ForceStage panel profile (schema \(Profile.schema)).\n"
        for line in header { out += "# \(line)\n" }
        out += "schema = \(Profile.schema)\nname = \(quoted(name))\n"
        if let sampleRateHz {
            out += "sample_rate_hz = \(JSON.format(sampleRateHz))  # scans/s calibrated at; the rate of a device that states none (an HX711)\n"
        }
        out += "\n"
        out += "[match]                 # which devices this profile is for; * and ? are wildcards\n"
        if let matchName { out += "name = \(quoted(matchName))\n" }
        if let matchLabel { out += "label = \(quoted(matchLabel))\n" }
        let s = settings
        out += "\n[levels]\n"
        out += "peek_newtons = \(s.peekNewtons)\npop_newtons = \(s.popNewtons)\n"
        out += "release_fraction = \(s.releaseFraction)  # release below \(Int((s.releaseFraction * 100).rounded())) % of the peek level\n"
        out += "hold_ms = \(s.holdMilliseconds)\n"
        out += "hold_settle_ms = \(s.holdSettleMilliseconds)  # hold waits until the force stops climbing this long\n"
        if let creep = s.creepAllowance { out += "creep_allowance = \(creep)  # FSR creep under a held peek that does not pop\n" }
        if let creep = s.creepAmount { out += "creep_amount = \(creep)  # the FSR's creep under a constant load, compensated until the pop (0: off)\n" }
        if s.creepAmount != nil || s.creepMilliseconds != ClassifierSettings.fsrCreepMilliseconds {
            out += "creep_ms = \(s.creepMilliseconds)  # the creep's time constant\n"
        }
        out += "\n[debounce]\n"
        out += "press = \(quoted(s.pressDebounce.mode == .eager ? "eager" : "deferred"))\npress_ms = \(s.pressDebounce.milliseconds)\n"
        out += "release = \(quoted(s.releaseDebounce.mode == .eager ? "eager" : "deferred"))\nrelease_ms = \(s.releaseDebounce.milliseconds)\n"
        out += "\n[baseline]\n"
        out += "enabled = \(s.baseline.enabled)\nrise_ms = \(s.baseline.riseMilliseconds)\nfall_ms = \(s.baseline.fallMilliseconds)\n"
        out += "smoothing_ms = \(s.baseline.smoothingMilliseconds)\ntouch_fraction = \(s.baseline.touchFraction)\nwarmup_ms = \(s.baseline.warmupMilliseconds)\n"
        out += "settle_ms = \(s.baseline.settleMilliseconds)\nundershoot_ms = \(s.baseline.undershootMilliseconds)\n"
        out += "\n[health]\n"
        out += "stuck_ms = \(s.stuckMilliseconds)\nsaturation_scans = \(s.saturationScans)\nspike_rejection = \(s.spikeRejection)\n"
        out += "spike_max_ms = \(s.spikeMaximumMilliseconds)\nvibration_holdoff_ms = \(s.vibrationHoldoffMilliseconds)\n"
        out += "vibration_rise_ms = \(s.vibrationRiseMilliseconds)\nvibration_confirm_ms = \(s.vibrationConfirmMilliseconds)\n"
        out += "vibration_curve_ms = \(s.vibrationCurveMilliseconds)\nvibration_curve_wait_ms = \(s.vibrationCurveWaitMilliseconds)\n"
        out += "stuck_step_fraction = \(s.stuckStepFraction)  # a noise-free reading frozen mid-press is stuck where one count is at most this share of the force\n"
        if let budgetMilliseconds {
            out += "\n[latency]\nbudget_ms = \(JSON.format(budgetMilliseconds))\n"
        }
        for c in channels {
            out += "\n[[channel]]\nid = \(quoted(c.channel))\n"
            switch c.mapping {
            case .linear(let zero, let scale):
                out += "zero_raw = \(JSON.format(zero))\nnewtons_per_count = \(JSON.format(scale))\n"
            case .curve(let points):
                out += "curve = [               # [raw, newtons], raw strictly increasing\n"
                for p in points { out += "  [\(JSON.format(p.raw)), \(JSON.format(p.newtons))],\n" }
                out += "]\n"
            }
            if let p = c.position { out += "position = [\(JSON.format(Double(p.x))), \(JSON.format(Double(p.y)))]\n" }
        }
        return out
    }

    /// Saves `text` as a profile at `path`, only if it reads back as a valid
    /// profile: the file is written to a temporary file beside it, synced,
    /// renamed over `path`, and the directory synced (``AtomicFile``). A crash
    /// at any point leaves the old file or the new one, never a mix, and a
    /// text that does not validate never replaces anything.
    ///
    /// - Returns: the profile as read back.
    @discardableResult
    public static func save(_ text: String, toPath path: String) throws -> Profile {
        let path = PathText.absolute(path)
        let checked = try Profile.parse(text, file: path)
        try AtomicFile.write(Array(text.utf8), toPath: path)
        return checked
    }

    private func quoted(_ s: String) -> String {
        "\"" + s.replacingScalars("\\", with: "\\\\").replacingScalars("\"", with: "\\\"") + "\""
    }
}
