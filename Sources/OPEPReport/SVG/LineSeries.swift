/// A line (or a staircase) through points in order; a point without a value breaks the line, so
/// missing data show as gaps instead of being bridged.
public struct LineSeries: ChartLayer {
    public enum Style: Sendable { case line, step }

    public var points: [(x: Double, y: Double?)]
    public var style: Style
    public var color: String
    public var strokeWidth: Double
    public var dashed: Bool
    public var label: String?

    public init(points: [(x: Double, y: Double?)], style: Style = .line, color: String, strokeWidth: Double = 1.2, dashed: Bool = false, label: String? = nil) {
        self.points = points
        self.style = style
        self.color = color
        self.strokeWidth = strokeWidth
        self.dashed = dashed
        self.label = label
    }

    public var legend: LegendEntry? { label.map { LegendEntry(label: $0, color: color, symbol: dashed ? .dashedLine : .line) } }

    public func svg(in area: PlotArea) -> String {
        var path = ""
        var drawing = false
        var previousY = 0.0
        for point in points {
            guard let value = point.y, value.isFinite, point.x.isFinite else {
                drawing = false
                continue
            }
            let px = Markup.coordinate(area.x(point.x))
            let py = area.y(value)
            if !drawing {
                path += "M\(px) \(Markup.coordinate(py))"
                drawing = true
            } else if style == .step {
                path += "H\(px)V\(Markup.coordinate(py))"
            } else {
                path += "L\(px) \(Markup.coordinate(py))"
            }
            previousY = py
        }
        _ = previousY
        guard !path.isEmpty else { return "" }
        let dash = dashed ? " stroke-dasharray=\"6 4\"" : ""
        return "<path d=\"\(path)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"\(Markup.coordinate(strokeWidth))\" stroke-linejoin=\"round\" stroke-linecap=\"round\"\(dash)/>"
    }
}
