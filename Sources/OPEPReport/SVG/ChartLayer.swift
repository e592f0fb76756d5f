/// Something drawn inside a chart's plot area, in plot coordinates (origin at the top left of the
/// plot; the plot clips whatever falls outside it).
public protocol ChartLayer {
    /// SVG elements for this layer.
    func svg(in area: PlotArea) -> String
    /// The entry in the chart's legend, if any.
    var legend: LegendEntry? { get }
}

/// One entry in a chart's legend.
public struct LegendEntry: Sendable, Hashable {
    public enum Symbol: Sendable, Hashable { case line, dashedLine, box, dot }
    public var label: String
    public var color: String
    public var symbol: Symbol

    public init(label: String, color: String, symbol: Symbol) {
        self.label = label
        self.color = color
        self.symbol = symbol
    }
}
