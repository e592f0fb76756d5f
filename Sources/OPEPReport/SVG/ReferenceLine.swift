/// A horizontal line at one value across the plot: e.g. the sessions a plan asks for each day.
public struct ReferenceLine: ChartLayer {
    public var value: Double
    public var color: String
    public var label: String?

    public init(value: Double, color: String, label: String? = nil) {
        self.value = value
        self.color = color
        self.label = label
    }

    public var legend: LegendEntry? { label.map { LegendEntry(label: $0, color: color, symbol: .dashedLine) } }

    public func svg(in area: PlotArea) -> String {
        let y = Markup.coordinate(area.y(value))
        return "<line x1=\"0\" y1=\"\(y)\" x2=\"\(Markup.coordinate(area.width))\" y2=\"\(y)\" stroke=\"\(color)\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>"
    }
}
