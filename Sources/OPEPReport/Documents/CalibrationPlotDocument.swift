import Foundation

/// A device calibration as a self-contained HTML page: pressure against pitch with the fitted
/// line (after Figure 4 of the pitch-to-pressure study), and the numbers of the fit.
public struct CalibrationPlotDocument {
    public var title: String
    /// (pitch Hz, pressure cmH2O) pairs; thinned evenly to ``maxPoints`` for drawing.
    public var points: [(pitch: Double, pressure: Double)]
    public var intercept: Double
    public var slope: Double
    /// Facts shown under the plot, e.g. ("r²", "0.886").
    public var facts: [(label: String, value: String)]
    /// A line to compare with, e.g. the published Acapella line.
    public var reference: (label: String, intercept: Double, slope: Double)?

    public static let maxPoints = 2000

    public init(
        title: String, points: [(pitch: Double, pressure: Double)], intercept: Double, slope: Double,
        facts: [(label: String, value: String)], reference: (label: String, intercept: Double, slope: Double)? = nil
    ) {
        self.title = title
        self.points = points
        self.intercept = intercept
        self.slope = slope
        self.facts = facts
        self.reference = reference
    }

    public func html() -> String {
        let stride = max(1, Int((Double(points.count) / Double(CalibrationPlotDocument.maxPoints)).rounded(.up)))
        let shown = Swift.stride(from: 0, to: points.count, by: stride).map { points[$0] }
        let pitches = points.map(\.pitch), pressures = points.map(\.pressure)
        let xLow = (pitches.min() ?? 10) - 1, xHigh = (pitches.max() ?? 40) + 1
        let x = Axis(label: "Pitch", unit: "Hz", range: xLow...xHigh)
        let line = { (a: Double, b: Double) in [(x: x.domain.lowerBound, y: Optional(a + b * x.domain.lowerBound)), (x: x.domain.upperBound, y: Optional(a + b * x.domain.upperBound))] }
        let y = Axis(label: "Pressure", unit: "cmH2O", range: min(pressures.min() ?? 0, 0)...(max(pressures.max() ?? 20, 5) * 1.05))
        var layers: [any ChartLayer] = [
            ScatterSeries(points: shown.map { ($0.pitch, $0.pressure) }, color: "#4a78b5", radius: 2, opacity: 0.45, label: "manometer vs. sound"),
            LineSeries(points: line(intercept, slope), color: "#c0392b", strokeWidth: 2,
                       label: "fit: \(Markup.number(intercept, 3)) + \(Markup.number(slope, 3)) × pitch"),
        ]
        if let reference {
            layers.append(LineSeries(points: line(reference.intercept, reference.slope), color: "#555555", strokeWidth: 1.2, dashed: true, label: reference.label))
        }
        var body = "<header><h1>\(Markup.escape(title))</h1></header>"
        body += HTMLPage.figure(Chart(title: "Pressure against pitch", x: x, y: y, layers: layers, height: 480),
            caption: "Each dot is one 10 ms frame: the flutter pitch heard and the manometer's pressure at that moment\(stride > 1 ? " (every \(stride)th of \(points.count) shown)" : "").", id: "calibration-plot")
        body += HTMLPage.facts(facts)
        return HTMLPage.render(title: title, body: body)
    }
}
