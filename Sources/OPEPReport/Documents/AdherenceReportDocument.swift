import Foundation
import OPEPKit

/// One session as the history keeps it: enough for adherence, nothing of its frames.
public struct AdherenceSession: Sendable, Hashable, Codable {
    public var start: Date
    /// Seconds.
    public var duration: Double
    public var breaths: Int
    public var sets: Int
    /// Share of flutter time in the target, 0-1.
    public var shareInTarget: Double?
    /// cmH2O.
    public var meanPressure: Double?

    public init(start: Date, duration: Double, breaths: Int, sets: Int, shareInTarget: Double?, meanPressure: Double?) {
        self.start = start
        self.duration = duration
        self.breaths = breaths
        self.sets = sets
        self.shareInTarget = shareInTarget
        self.meanPressure = meanPressure
    }
}

/// Adherence to a plan over a range of days, as a self-contained HTML page: sessions per day
/// against the plan, breaths, time in target and mean pressure per session, and tables.
///
/// A pure function of its inputs (no clock, no time zone of the machine unless passed in), so the
/// session history can feed it rows from its database.
public struct AdherenceReportDocument {
    public var title: String
    public var sessions: [AdherenceSession]
    /// The plan the days are counted against (its ``TherapyPlan/sessionsPerDay``).
    public var plan: TherapyPlan
    private var sessionsPerDay: Int { plan.sessionsPerDay }
    /// First and last day shown (whole calendar days in `timeZone`, both included).
    public var from: Date
    public var to: Date
    public var timeZone: TimeZone

    public init(
        title: String = "Therapy adherence", sessions: [AdherenceSession], plan: TherapyPlan = .standard,
        from: Date, to: Date, timeZone: TimeZone
    ) {
        self.title = title
        self.sessions = sessions
        self.plan = plan
        self.from = from
        self.to = to
        self.timeZone = timeZone
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The days in the range, each with its sessions in time order.
    public var days: [(day: Date, sessions: [AdherenceSession])] {
        let calendar = self.calendar
        let first = calendar.startOfDay(for: min(from, to)), last = calendar.startOfDay(for: max(from, to))
        var days: [(day: Date, sessions: [AdherenceSession])] = []
        var day = first
        while day <= last, days.count < 3660 {
            let next = calendar.date(byAdding: .day, value: 1, to: day)!
            days.append((day, sessions.filter { $0.start >= day && $0.start < next }.sorted { $0.start < $1.start }))
            day = next
        }
        return days
    }

    private func format(_ date: Date, _ pattern: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }

    public func html() -> String {
        let days = self.days
        let inRange = days.flatMap(\.sessions)
        let first = days.first?.day ?? from
        let dayLength = 86400.0
        /// Days since the first day (fractional), the x of every chart.
        func x(_ date: Date) -> Double { date.timeIntervalSince(first) / dayLength }
        let dayFormat: (Double) -> String = { value in
            self.format(first.addingTimeInterval(value * dayLength), "MMM d")
        }
        let span = Double(max(days.count, 1))
        func timeAxis() -> Axis {
            var axis = Axis(label: "Date", unit: "", range: 0...span, tickCount: min(days.count, 10), tight: true, format: dayFormat)
            axis.scale = NiceScale(0...span, count: min(max(days.count, 1), 10), tight: true)
            if axis.scale.step < 1 { axis.scale = NiceScale(0...span, count: Int(span), tight: true) }
            return axis
        }
        let planned = Double(sessionsPerDay)
        let daysMet = days.filter { $0.sessions.count >= sessionsPerDay }.count
        let plannedBreaths = plan.breathsPerSet * plan.sets

        var body = "<header><h1>\(Markup.escape(title))</h1><p class=\"meta\">"
        body += "<span>\(Markup.escape(format(first, "yyyy-MM-dd"))) – \(Markup.escape(format(days.last?.day ?? to, "yyyy-MM-dd"))) (\(days.count) day\(days.count == 1 ? "" : "s"), \(Markup.escape(timeZone.identifier)))</span> "
        body += "<span>Plan: \(sessionsPerDay) session\(sessionsPerDay == 1 ? "" : "s") a day, \(plan.sets) × \(plan.breathsPerSet) breaths, \(Markup.number(plan.minutes, 0)) min, \(Markup.number(plan.target.lowerCmH2O, 0))–\(Markup.number(plan.target.upperCmH2O, 0)) cmH2O</span>"
        body += "</p></header>"
        let shares = inRange.compactMap(\.shareInTarget)
        let pressures = inRange.compactMap(\.meanPressure)
        body += HTMLPage.heading("Summary", id: "summary")
        body += HTMLPage.facts([
            ("Sessions", "\(inRange.count) of \(days.count * sessionsPerDay) planned"),
            ("Days on plan", "\(daysMet) of \(days.count)"),
            ("Adherence", Markup.percent(days.isEmpty ? nil : min(Double(inRange.count) / Double(days.count * sessionsPerDay), 1))),
            ("Breaths per session", inRange.isEmpty ? "–" : Markup.number(Double(inRange.map(\.breaths).reduce(0, +)) / Double(inRange.count), 1) + " (plan \(plannedBreaths))"),
            ("Mean time in target", Markup.percent(shares.isEmpty ? nil : shares.reduce(0, +) / Double(shares.count))),
            ("Mean pressure", pressures.isEmpty ? "–" : Markup.number(pressures.reduce(0, +) / Double(pressures.count), 1) + " cmH2O"),
        ])

        body += HTMLPage.heading("Charts", id: "charts")
        let perDay = days.enumerated().map { (x: Double($0.offset) + 0.5, value: Double($0.element.sessions.count)) }
        let maxCount = max(perDay.map(\.value).max() ?? 0, planned) + 1
        body += HTMLPage.figure(Chart(
            title: "Sessions per day", x: timeAxis(), y: Axis(label: "Sessions", unit: "per day", range: 0...maxCount, tickCount: Int(min(maxCount, 6))),
            layers: [BarSeries(bars: perDay, width: 0.7, color: "#4a78b5", label: "sessions"), ReferenceLine(value: planned, color: "#c0392b", label: "plan (\(sessionsPerDay) a day)")],
            height: 220), caption: "Sessions each day against the plan.", id: "sessions-per-day")
        let breathPoints = inRange.map { (x: x($0.start), y: Double($0.breaths)) }
        body += HTMLPage.figure(Chart(
            title: "Breaths per session", x: timeAxis(), y: Axis(label: "Breaths", unit: "per session", range: 0...Double(max(breathPoints.map(\.y).max().map(Int.init) ?? 0, plannedBreaths) + 2)),
            layers: [ScatterSeries(points: breathPoints, color: "#4a78b5", radius: 3.5, label: "breaths"), ReferenceLine(value: Double(plannedBreaths), color: "#c0392b", label: "plan (\(plannedBreaths))")],
            height: 220), caption: "Breaths in each session.", id: "breaths-per-session")
        let sharePoints = inRange.compactMap { s in s.shareInTarget.map { (x: x(s.start), y: $0 * 100) } }
        body += HTMLPage.figure(Chart(
            title: "Time in target per session", x: timeAxis(), y: Axis(label: "Time in target", unit: "%", range: 0...100),
            layers: [LineSeries(points: sharePoints.map { ($0.x, Optional($0.y)) }, color: "#2e8b3a", strokeWidth: 1), ScatterSeries(points: sharePoints, color: "#2e8b3a", radius: 3.5, label: "in target")],
            height: 220), caption: "Share of the flutter time within the target pressure.", id: "share-in-target")
        let pressurePoints = inRange.compactMap { s in s.meanPressure.map { (x: x(s.start), y: $0) } }
        let pressureHigh = max(pressurePoints.map(\.y).max() ?? 0, plan.target.upperCmH2O + 5)
        body += HTMLPage.figure(Chart(
            title: "Mean pressure trend", x: timeAxis(), y: Axis(label: "Mean pressure", unit: "cmH2O", range: min(pressurePoints.map(\.y).min() ?? 0, 0)...pressureHigh),
            layers: [
                HorizontalBand(range: plan.target.lowerCmH2O...plan.target.upperCmH2O, color: "#2e8b3a", label: "target"),
                LineSeries(points: pressurePoints.map { ($0.x, Optional($0.y)) }, color: "#c0392b", strokeWidth: 1),
                ScatterSeries(points: pressurePoints, color: "#c0392b", radius: 3.5, label: "mean pressure"),
            ], height: 220), caption: "Mean predicted pressure of each session.", id: "pressure-trend")

        body += "<section class=\"page\">"
        body += HTMLPage.heading("Days", id: "days")
        body += HTMLPage.table(
            id: "days-table", caption: nil, header: ["Date", "Sessions", "Planned", "Breaths", "On plan"], numeric: [1, 2, 3],
            rows: days.map { day in
                let met = day.sessions.count >= sessionsPerDay
                return (attributes: "class=\"day\"", cells: [
                    Markup.escape(format(day.day, "EEE yyyy-MM-dd")), "\(day.sessions.count)", "\(sessionsPerDay)",
                    "\(day.sessions.map(\.breaths).reduce(0, +))",
                    met ? "<span class=\"flag ok\">yes</span>" : "<span class=\"flag\">no</span>",
                ])
            })
        body += HTMLPage.heading("Sessions", id: "sessions")
        body += inRange.isEmpty ? "<p>No sessions in this range.</p>" : HTMLPage.table(
            id: "sessions-table", caption: nil,
            header: ["Date and time", "Duration", "Breaths", "Sets", "In target", "Mean pressure (cmH2O)"], numeric: [1, 2, 3, 4, 5],
            rows: inRange.map { s in
                (attributes: "class=\"session\"", cells: [
                    format(s.start, "yyyy-MM-dd HH:mm"), Markup.clock(s.duration), "\(s.breaths)", "\(s.sets)",
                    Markup.percent(s.shareInTarget), Markup.number(s.meanPressure, 1),
                ].map(Markup.escape))
            })
        body += "</section>"
        return HTMLPage.render(title: title, body: body)
    }
}
