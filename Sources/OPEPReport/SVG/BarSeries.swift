/// Vertical bars from a baseline (default 0), centred on their x, `width` data units wide.
public struct BarSeries: ChartLayer {
    public var bars: [(x: Double, value: Double)]
    public var width: Double
    public var baseline: Double
    public var color: String
    public var label: String?

    public init(bars: [(x: Double, value: Double)], width: Double, baseline: Double = 0, color: String, label: String? = nil) {
        self.bars = bars
        self.width = width
        self.baseline = baseline
        self.color = color
        self.label = label
    }

    public var legend: LegendEntry? { label.map { LegendEntry(label: $0, color: color, symbol: .box) } }

    public func svg(in area: PlotArea) -> String {
        guard !bars.isEmpty else { return "" }
        var out = "<g fill=\"\(color)\">"
        let w = max(area.xLength(width), 1)
        for bar in bars where bar.value.isFinite {
            let top = area.y(max(bar.value, baseline)), bottom = area.y(min(bar.value, baseline))
            out += "<rect x=\"\(Markup.coordinate(area.x(bar.x) - w / 2))\" y=\"\(Markup.coordinate(top))\" width=\"\(Markup.coordinate(w))\" height=\"\(Markup.coordinate(bottom - top))\"/>"
        }
        return out + "</g>"
    }
}
