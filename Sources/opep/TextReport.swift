import OPEPHistory
import OPEPKit
import OPEPReport

/// The readable summary of a session with its per-breath table.
enum TextReport {
    static func render(_ analysis: SessionAnalysis) -> String {
        let s = analysis.summary
        let settings = analysis.settings
        let device = settings.device
        var lines: [String] = []
        lines.append("\(settings.file): \(settings.format), \(clock(s.duration))")
        lines.append("Device \(device.name) (\(device.lowerFrequency.clean)-\(device.upperFrequency.clean) Hz, pressure = \(fixed(device.interceptCmH2O, 3)) + \(fixed(device.slopeCmH2OPerHz, 3)) × pitch), target \(settings.target.lowerCmH2O.clean)-\(settings.target.upperCmH2O.clean) cmH2O")
        for warning in settings.warnings { lines.append("warning: \(warning)") }
        lines.append("")
        var headline = "\(s.breathCount) breath\(s.breathCount == 1 ? "" : "s") in \(s.setCount) set\(s.setCount == 1 ? "" : "s"), \(s.huffCoughCount) huff cough\(s.huffCoughCount == 1 ? "" : "s")"
        headline += ", exhaling \(clock(s.exhalationTime)) of \(clock(s.duration))"
        if let mean = s.meanBreathDuration { headline += ", mean exhalation \(fixed(mean, 1)) s" }
        lines.append(headline)
        if let pressure = s.meanPressure, let shares = s.zoneShares {
            lines.append("Mean pressure \(fixed(pressure, 1)) cmH2O (pitch \(fixed(s.meanPitch ?? 0, 1)) Hz); time in target \(percent(shares.within)), below \(percent(shares.below)), above \(percent(shares.above))")
        } else {
            lines.append("No flutter was heard: no pressure to report.")
        }
        if let share = s.flutterShare {
            lines.append("Flutter measured in \(percent(share)) of the exhalation time" + (s.unmeasured.map(unmeasured) ?? ""))
        }
        if let ratio = s.exhalationInhalationRatio {
            lines.append("Exhalation/inhalation ratio \(fixed(ratio, 1)) (from \(s.inhalationsHeard) inhalations heard)")
        }
        guard !analysis.breaths.isEmpty else { return lines.joined(separator: "\n") }
        lines.append("")
        lines.append("  #  set    start   length  mean   min   max  pitch  in target  measured  not measured")
        lines.append("                       s      cmH2O cmH2O cmH2O   Hz")
        for b in analysis.breaths {
            var row = [
                "\(b.index)".leftPad(3), "\(b.set)".leftPad(4), clock(b.start).leftPad(8), fixed(b.duration, 1).leftPad(8),
                (b.meanPressure.map { fixed($0, 1) } ?? "-").leftPad(5), (b.minPressure.map { fixed($0, 1) } ?? "-").leftPad(5),
                (b.maxPressure.map { fixed($0, 1) } ?? "-").leftPad(5), (b.meanPitch.map { fixed($0, 1) } ?? "-").leftPad(6),
                (b.shareInTarget.map(percent) ?? "-").leftPad(10), percent(b.flutterShare).leftPad(9),
            ]
            if let reasons = b.unmeasured?.breakdown, !reasons.isEmpty { row.append(" " + reasons) }
            lines.append(row.joined(separator: " "))
        }
        lines.append("")
        for set in analysis.sets {
            var line = "Set \(set.index): \(set.breathCount) breath\(set.breathCount == 1 ? "" : "s") from \(clock(set.start)) to \(clock(set.end))"
            if let pressure = set.meanPressure { line += ", mean \(fixed(pressure, 1)) cmH2O" }
            if let share = set.shareInTarget { line += ", \(percent(share)) in target" }
            line += ", \(set.huffCoughs) huff cough\(set.huffCoughs == 1 ? "" : "s") after"
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// "; not measured 4.1 s: too noisy 2.0 s, too far 1.5 s, onsets and short gaps 0.6 s" (the
    /// reasons given for at least 0.05 s, the longest first); nothing when under 0.05 s was not
    /// measured.
    static func unmeasured(_ u: UnmeasuredTime) -> String {
        let reasons = u.breakdown
        return reasons.isEmpty ? "" : "; not measured \(fixed(u.total, 1)) s: " + reasons
    }

    /// The placement check's verdict on the first breath through the device, with its figures
    /// (or what to do when none was heard).
    static func placement(_ breath: Breath?) -> String {
        guard let breath, let signal = breath.signal else {
            return "Placement: no breath through the device was heard. \(SignalProblem.noFlutter.advice)"
        }
        var figures = ["flutter measured in \(Int((breath.flutterShare * 100).rounded())) % of the breath"]
        if let snr = signal.snrDB { figures.append("the breath \(fixed(snr, 0)) dB over the room") }
        figures.append("modulation \(fixed(signal.modulation, 2))")
        if signal.clippedShare >= 0.01 { figures.append("\(fixed(signal.clippedShare * 100, 1)) % of samples at their peak") }
        let verdict = signal.problem.map { "heard, with a problem (\($0.words)): \($0.advice)" } ?? "heard clearly: keep the phone where it is."
        return "Placement: \(verdict)\n  " + figures.joined(separator: ", ") + "."
    }

    /// `m:ss.s` for times in a session.
    static func clock(_ seconds: Double) -> String {
        let tenths = Int((max(0, seconds) * 10).rounded())
        let minutes = tenths / 600
        let rest = Double(tenths % 600) / 10
        return "\(minutes):\(rest < 10 ? "0" : "")\(fixed(rest, 1))"
    }
}
