/// Dots at points: e.g. calibration pairs or one value per session.
public struct ScatterSeries: ChartLayer {
    public var points: [(x: Double, y: Double)]
    public var color: String
    public var radius: Double
    public var opacity: Double
    public var label: String?

    public init(points: [(x: Double, y: Double)], color: String, radius: Double = 2.5, opacity: Double = 0.8, label: String? = nil) {
        self.points = points
        self.color = color
        self.radius = radius
        self.opacity = opacity
        self.label = label
    }

    public var legend: LegendEntry? { label.map { LegendEntry(label: $0, color: color, symbol: .dot) } }

    public func svg(in area: PlotArea) -> String {
        guard !points.isEmpty else { return "" }
        var out = "<g fill=\"\(color)\" fill-opacity=\"\(opacity)\">"
        let r = Markup.coordinate(radius)
        for point in points where point.x.isFinite && point.y.isFinite {
            out += "<circle cx=\"\(Markup.coordinate(area.x(point.x)))\" cy=\"\(Markup.coordinate(area.y(point.y)))\" r=\"\(r)\"/>"
        }
        return out + "</g>"
    }
}
