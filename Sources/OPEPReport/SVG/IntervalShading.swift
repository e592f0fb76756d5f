/// Shaded spans of x, full height: e.g. the exhalations of a session.
public struct IntervalShading: ChartLayer {
    public var intervals: [ClosedRange<Double>]
    public var color: String
    public var opacity: Double
    public var label: String?

    public init(intervals: [ClosedRange<Double>], color: String, opacity: Double = 0.18, label: String? = nil) {
        self.intervals = intervals
        self.color = color
        self.opacity = opacity
        self.label = label
    }

    public var legend: LegendEntry? { label.map { LegendEntry(label: $0, color: color, symbol: .box) } }

    public func svg(in area: PlotArea) -> String {
        guard !intervals.isEmpty else { return "" }
        var out = "<g fill=\"\(color)\" fill-opacity=\"\(opacity)\">"
        for interval in intervals {
            let x0 = area.x(interval.lowerBound)
            let width = max(area.x(interval.upperBound) - x0, 0.5)
            out += "<rect x=\"\(Markup.coordinate(x0))\" y=\"0\" width=\"\(Markup.coordinate(width))\" height=\"\(Markup.coordinate(area.height))\"/>"
        }
        return out + "</g>"
    }
}
