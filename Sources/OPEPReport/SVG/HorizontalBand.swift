/// A shaded band of y across the whole plot, edged with thin lines: e.g. the target pressure.
public struct HorizontalBand: ChartLayer {
    public var range: ClosedRange<Double>
    public var color: String
    public var opacity: Double
    public var label: String?

    public init(range: ClosedRange<Double>, color: String, opacity: Double = 0.15, label: String? = nil) {
        self.range = range
        self.color = color
        self.opacity = opacity
        self.label = label
    }

    public var legend: LegendEntry? { label.map { LegendEntry(label: $0, color: color, symbol: .box) } }

    public func svg(in area: PlotArea) -> String {
        let top = area.y(range.upperBound), bottom = area.y(range.lowerBound)
        let w = Markup.coordinate(area.width)
        return "<g><rect x=\"0\" y=\"\(Markup.coordinate(top))\" width=\"\(w)\" height=\"\(Markup.coordinate(max(bottom - top, 0)))\" fill=\"\(color)\" fill-opacity=\"\(opacity)\"/>"
            + "<line x1=\"0\" y1=\"\(Markup.coordinate(top))\" x2=\"\(w)\" y2=\"\(Markup.coordinate(top))\" stroke=\"\(color)\" stroke-width=\"0.8\"/>"
            + "<line x1=\"0\" y1=\"\(Markup.coordinate(bottom))\" x2=\"\(w)\" y2=\"\(Markup.coordinate(bottom))\" stroke=\"\(color)\" stroke-width=\"0.8\"/></g>"
    }
}
