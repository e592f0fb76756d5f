import Foundation
import OPEPKit

/// Everything a session report shows, as plain values: the analysis of one recording (or, later,
/// a session read back from the history).
public struct SessionReportInput: Sendable {
    public var title: String
    /// Extra facts for the header, e.g. ("File", "session.wav"), ("Recorded", "2024-05-01 08:12").
    public var details: [(label: String, value: String)]
    public var device: DeviceProfile
    public var target: TargetRange
    public var summary: SessionSummary
    public var breaths: [Breath]
    public var sets: [TherapySet]
    /// The frame trace, already decimated (see ``FrameDecimator``); it is thinned further to
    /// ``SessionReportDocument/maxPlotPoints`` if longer.
    public var trace: [TracePoint]

    public init(
        title: String, details: [(label: String, value: String)] = [], device: DeviceProfile, target: TargetRange,
        summary: SessionSummary, breaths: [Breath], sets: [TherapySet], trace: [TracePoint]
    ) {
        self.title = title
        self.details = details
        self.device = device
        self.target = target
        self.summary = summary
        self.breaths = breaths
        self.sets = sets
        self.trace = trace
    }
}

/// When a breath is flagged in the report.
public struct BreathFlagRules: Sendable, Hashable {
    /// Breaths shorter than this are "too short", in seconds (default 2).
    public var minimumDuration: Double
    /// Breaths whose pressure spans more than this are "unsteady", in cmH2O (default 8).
    public var unsteadyRange: Double

    public init(minimumDuration: Double = 2, unsteadyRange: Double = 8) {
        self.minimumDuration = minimumDuration
        self.unsteadyRange = unsteadyRange
    }

    /// The flags of one breath against a target.
    public func flags(for breath: Breath, target: TargetRange) -> [BreathFlag] {
        var flags: [BreathFlag] = []
        if breath.duration < minimumDuration { flags.append(.tooShort) }
        if let mean = breath.meanPressure {
            if mean < target.lowerCmH2O { flags.append(.tooSoft) }
            if mean > target.upperCmH2O { flags.append(.tooHard) }
        }
        if let low = breath.minPressure, let high = breath.maxPressure, high - low > unsteadyRange { flags.append(.unsteady) }
        if breath.meanPressure == nil { flags.append(.noFlutter) }
        return flags
    }
}

/// Something a physiotherapist should look at in a breath.
public enum BreathFlag: String, Sendable, Hashable, CaseIterable {
    case tooShort = "too short", tooSoft = "too soft", tooHard = "too hard", unsteady, noFlutter = "no flutter"
}

/// One session as a self-contained HTML page: summary, the pressure, pitch and level over time
/// (after Figure 3 of the pitch-to-pressure study), the sets and every breath with its flags.
public struct SessionReportDocument {
    /// Most points drawn per line.
    public static let maxPlotPoints = 2000

    public var input: SessionReportInput
    public var rules: BreathFlagRules

    public init(input: SessionReportInput, rules: BreathFlagRules = .init()) {
        self.input = input
        self.rules = rules
    }

    /// The whole HTML file.
    public func html() -> String {
        HTMLPage.render(title: input.title, body: body())
    }

    func body() -> String {
        let s = input.summary
        var out = "<header><h1>\(Markup.escape(input.title))</h1><p class=\"meta\">"
        for detail in input.details {
            out += "<span>\(Markup.escape(detail.label)): \(Markup.escape(detail.value))</span> "
        }
        let d = input.device
        out += "<span>Device: \(Markup.escape(d.name)) (\(Markup.number(d.lowerFrequency, 0))–\(Markup.number(d.upperFrequency, 0)) Hz, pressure = \(Markup.number(d.interceptCmH2O, 3)) + \(Markup.number(d.slopeCmH2OPerHz, 3)) × pitch)</span> "
        out += "<span>Target: \(Markup.number(input.target.lowerCmH2O, 1))–\(Markup.number(input.target.upperCmH2O, 1)) cmH2O</span>"
        out += "</p></header>"

        out += HTMLPage.heading("Summary", id: "summary")
        out += HTMLPage.facts(summaryFacts(s))

        out += HTMLPage.heading("Over time", id: "plots")
        let trace = SessionReportDocument.thin(input.trace, to: SessionReportDocument.maxPlotPoints)
        let time = timeAxis()
        out += HTMLPage.figure(pressureChart(trace, time: time), caption: "Expiratory pressure predicted from the flutter pitch; exhalations shaded, the target band in green.", id: "pressure-plot")
        out += HTMLPage.figure(pitchChart(trace, time: time), caption: "Flutter pitch heard during exhalations.", id: "pitch-plot")
        out += HTMLPage.figure(levelChart(trace, time: time), caption: "Sound energy envelope (high-passed level).", id: "level-plot")

        out += HTMLPage.heading("Sets", id: "sets")
        out += setsTable()
        out += HTMLPage.heading("Breaths", id: "breaths")
        out += breathsTable()
        out += "<p class=\"note\">Flags: too short = under \(Markup.number(rules.minimumDuration, 1)) s; too soft / too hard = mean pressure below / above the target; unsteady = pressure range within the breath over \(Markup.number(rules.unsteadyRange, 1)) cmH2O; no flutter = no pitch heard. Pressures are predicted from the sound, not measured.</p>"
        return out
    }

    func summaryFacts(_ s: SessionSummary) -> [(label: String, value: String)] {
        var facts: [(label: String, value: String)] = [
            ("Duration", Markup.clock(s.duration)),
            ("Breaths", "\(s.breathCount)"),
            ("Sets", "\(s.setCount)"),
            ("Huff coughs", "\(s.huffCoughCount)"),
            ("Exhaling", Markup.clock(s.exhalationTime)),
            ("Mean exhalation", s.meanBreathDuration.map { Markup.number($0, 1) + " s" } ?? "–"),
            ("Mean pressure", s.meanPressure.map { Markup.number($0, 1) + " cmH2O" } ?? "–"),
            ("Mean pitch", s.meanPitch.map { Markup.number($0, 1) + " Hz" } ?? "–"),
            ("Time in target", Markup.percent(s.zoneShares?.within)),
            ("Below target", Markup.percent(s.zoneShares?.below)),
            ("Above target", Markup.percent(s.zoneShares?.above)),
        ]
        if let share = s.flutterShare {
            facts.append(("Flutter measured", Markup.percent(share) + " of the exhalation time"))
        }
        if let unmeasured = s.unmeasured, case let reasons = unmeasured.breakdown, !reasons.isEmpty {
            facts.append(("Not measured", Markup.number(unmeasured.total, 1) + " s: " + reasons))
        }
        if let ratio = s.exhalationInhalationRatio {
            facts.append(("Exhale / inhale", Markup.number(ratio, 1) + " (\(s.inhalationsHeard) heard)"))
        }
        return facts
    }

    /// Minutes for sessions over three minutes, else seconds.
    func timeAxis() -> Axis {
        let end = max(input.summary.duration, input.trace.last?.time ?? 0, 1)
        if end > 180 {
            return Axis(label: "Time", unit: "min", range: 0...(end / 60), tickCount: 10, tight: true)
        }
        return Axis(label: "Time", unit: "s", range: 0...end, tickCount: 10, tight: true)
    }

    private func minutes(_ axis: Axis) -> Double { axis.unit == "min" ? 60 : 1 }

    private var exhalations: IntervalShading {
        IntervalShading(intervals: input.breaths.map { $0.start...$0.end }, color: "#4a78b5", label: "exhalation")
    }

    func pressureChart(_ trace: [TracePoint], time: Axis) -> Chart {
        let k = minutes(time)
        let values = trace.compactMap(\.pressure)
        let low = min(values.min() ?? 0, 0), high = max(values.max() ?? 0, input.target.upperCmH2O + 5)
        let shading = IntervalShading(intervals: exhalations.intervals.map { ($0.lowerBound / k)...($0.upperBound / k) }, color: "#4a78b5", label: "exhalation")
        return Chart(
            title: "Pressure over time",
            x: time, y: Axis(label: "Pressure", unit: "cmH2O", range: low...high),
            layers: [
                shading,
                HorizontalBand(range: input.target.lowerCmH2O...input.target.upperCmH2O, color: "#2e8b3a", label: "target \(Markup.number(input.target.lowerCmH2O, 0))–\(Markup.number(input.target.upperCmH2O, 0)) cmH2O"),
                LineSeries(points: trace.map { ($0.time / k, $0.pressure) }, color: "#c0392b", strokeWidth: 1.3, label: "predicted pressure"),
            ])
    }

    func pitchChart(_ trace: [TracePoint], time: Axis) -> Chart {
        let k = minutes(time)
        let d = input.device
        let shading = IntervalShading(intervals: exhalations.intervals.map { ($0.lowerBound / k)...($0.upperBound / k) }, color: "#4a78b5", label: "exhalation")
        return Chart(
            title: "Pitch over time",
            x: time, y: Axis(label: "Pitch", unit: "Hz", range: d.lowerFrequency...d.upperFrequency),
            layers: [shading, LineSeries(points: trace.map { ($0.time / k, $0.pitch) }, color: "#6c3fa0", strokeWidth: 1.3, label: "flutter pitch")])
    }

    func levelChart(_ trace: [TracePoint], time: Axis) -> Chart {
        let k = minutes(time)
        let levels = trace.map(\.levelDB).filter(\.isFinite)
        let low = max(levels.min() ?? -100, -140), high = min(levels.max() ?? 0, 0)
        let shading = IntervalShading(intervals: exhalations.intervals.map { ($0.lowerBound / k)...($0.upperBound / k) }, color: "#4a78b5", label: "exhalation")
        return Chart(
            title: "Sound energy over time",
            x: time, y: Axis(label: "Level", unit: "dBFS", range: low...max(high, low + 1)),
            layers: [shading, LineSeries(points: trace.map { ($0.time / k, $0.levelDB) }, color: "#333333", strokeWidth: 1, label: "level")],
            height: 200)
    }

    func setsTable() -> String {
        guard !input.sets.isEmpty else { return "<p>No sets.</p>" }
        let rows = input.sets.map { set in
            (attributes: "class=\"set\" data-set=\"\(set.index)\"", cells: [
                "\(set.index)", Markup.clock(set.start), Markup.clock(set.end), "\(set.breathCount)", "\(set.huffCoughs)",
                Markup.number(set.meanPressure, 1), Markup.percent(set.shareInTarget),
            ].map(Markup.escape))
        }
        return HTMLPage.table(
            id: "sets-table", caption: nil,
            header: ["Set", "Start", "End", "Breaths", "Huff coughs", "Mean pressure (cmH2O)", "In target"],
            numeric: [0, 3, 4, 5, 6], rows: rows)
    }

    func breathsTable() -> String {
        guard !input.breaths.isEmpty else { return "<p>No breaths were found.</p>" }
        let rows = input.breaths.map { b in
            let flags = rules.flags(for: b, target: input.target)
            let flagCell = flags.isEmpty
                ? "<span class=\"flag ok\">ok</span>"
                : flags.map { "<span class=\"flag\">\(Markup.escape($0.rawValue))</span>" }.joined()
            var cells = [
                "\(b.index)", "\(b.set)", Markup.clock(b.start), Markup.number(b.duration, 1),
                Markup.number(b.meanPressure, 1), Markup.number(b.minPressure, 1), Markup.number(b.maxPressure, 1),
                Markup.number(b.meanPitch, 1), Markup.percent(b.shareInTarget), Markup.percent(b.flutterShare),
                b.unmeasured.map(\.breakdown) ?? "–",
                b.signal.map { signal in signal.problem?.words ?? "clear" } ?? "–",
            ].map(Markup.escape)
            cells.append(flagCell)
            return (attributes: "class=\"breath\" id=\"breath-\(b.index)\"", cells: cells)
        }
        return HTMLPage.table(
            id: "breaths-table", caption: nil,
            header: [
                "#", "Set", "Start", "Duration (s)", "Mean (cmH2O)", "Min (cmH2O)", "Max (cmH2O)", "Pitch (Hz)", "In target",
                "Measured", "Not measured", "Signal", "Flags",
            ],
            numeric: [0, 1, 3, 4, 5, 6, 7, 8, 9], rows: rows)
    }

    /// At most `limit` points: consecutive points are averaged in equal groups (a gap stays a gap
    /// when most of its group is missing).
    public static func thin(_ trace: [TracePoint], to limit: Int) -> [TracePoint] {
        guard trace.count > limit, limit > 0 else { return trace }
        let group = Int((Double(trace.count) / Double(limit)).rounded(.up))
        var out: [TracePoint] = []
        out.reserveCapacity(limit)
        var index = 0
        while index < trace.count {
            let slice = trace[index..<min(index + group, trace.count)]
            func mean(_ values: [Double]) -> Double? { values.count * 2 >= slice.count && !values.isEmpty ? values.reduce(0, +) / Double(values.count) : nil }
            out.append(TracePoint(
                time: (slice.first!.time + slice.last!.time) / 2,
                pitch: mean(slice.compactMap(\.pitch)), pressure: mean(slice.compactMap(\.pressure)),
                exhaling: slice.filter(\.exhaling).count * 2 > slice.count,
                levelDB: slice.map(\.levelDB).reduce(0, +) / Double(slice.count)))
            index += group
        }
        return out
    }
}

extension UnmeasuredTime {
    /// "too noisy 2.0 s, too far 1.5 s, onsets and short gaps 0.6 s": the reasons given for at
    /// least 0.05 s, the longest first, then the time without a reason; empty when under 0.05 s
    /// was not measured (nothing worth a line: a report leaves the sentence out).
    public var breakdown: String {
        let shown = reasons.filter { time($0) >= 0.05 }
        let unnamed = total - shown.reduce(0) { $0 + time($1) }
        let parts = shown.map { "\($0.words) \(Markup.number(time($0), 1)) s" }
            + (unnamed >= 0.05 ? ["onsets and short gaps \(Markup.number(unnamed, 1)) s"] : [])
        return parts.joined(separator: ", ")
    }
}
