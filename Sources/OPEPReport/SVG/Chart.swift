/// A chart: two axes, layers drawn in order inside the plot, a legend; rendered as inline SVG that
/// scales to the width of the page (the viewBox keeps the proportions).
public struct Chart {
    public var title: String
    public var x: Axis
    public var y: Axis
    public var layers: [any ChartLayer]
    public var width: Double
    public var height: Double

    public init(title: String, x: Axis, y: Axis, layers: [any ChartLayer], width: Double = 900, height: Double = 250) {
        self.title = title
        self.x = x
        self.y = y
        self.layers = layers
        self.width = width
        self.height = height
    }

    /// Space right of the plot, in pixels.
    static let rightMargin = 14.0

    /// The plot rectangle inside the chart's margins.
    public var area: PlotArea {
        let left = 62.0, top = 26.0, bottom = 44.0
        return PlotArea(
            left: left, top: top, width: width - left - Self.rightMargin, height: height - top - bottom,
            xDomain: x.domain, yDomain: y.domain)
    }

    public func svg() -> String {
        let area = self.area
        var out = "<svg class=\"chart\" viewBox=\"0 0 \(Markup.coordinate(width)) \(Markup.coordinate(height))\" role=\"img\" aria-label=\"\(Markup.escape(title))\" font-family=\"Helvetica, Arial, sans-serif\">"
        out += "<title>\(Markup.escape(title))</title>"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
        out += AxisRenderer.render(x: x, y: y, area: area, rightMargin: Self.rightMargin)
        // A nested viewport clips the data to the plot without needing document-wide ids.
        out += "<svg x=\"\(Markup.coordinate(area.left))\" y=\"\(Markup.coordinate(area.top))\" width=\"\(Markup.coordinate(area.width))\" height=\"\(Markup.coordinate(area.height))\" overflow=\"hidden\">"
        for layer in layers { out += layer.svg(in: area) }
        out += "</svg>"
        out += legend(area: area)
        out += "</svg>"
        return out
    }

    private func legend(area: PlotArea) -> String {
        let entries = layers.compactMap(\.legend)
        guard !entries.isEmpty else { return "" }
        var out = "<g class=\"legend\" font-size=\"11\" fill=\"#333\">"
        var x = area.left
        let y = 13.0
        for entry in entries {
            switch entry.symbol {
            case .line, .dashedLine:
                let dash = entry.symbol == .dashedLine ? " stroke-dasharray=\"5 3\"" : ""
                out += "<line x1=\"\(Markup.coordinate(x))\" y1=\"\(Markup.coordinate(y))\" x2=\"\(Markup.coordinate(x + 18))\" y2=\"\(Markup.coordinate(y))\" stroke=\"\(entry.color)\" stroke-width=\"2\"\(dash)/>"
            case .box:
                out += "<rect x=\"\(Markup.coordinate(x))\" y=\"\(Markup.coordinate(y - 5))\" width=\"18\" height=\"10\" fill=\"\(entry.color)\" fill-opacity=\"0.35\" stroke=\"\(entry.color)\" stroke-width=\"0.6\"/>"
            case .dot:
                out += "<circle cx=\"\(Markup.coordinate(x + 9))\" cy=\"\(Markup.coordinate(y))\" r=\"3\" fill=\"\(entry.color)\"/>"
            }
            out += "<text x=\"\(Markup.coordinate(x + 23))\" y=\"\(Markup.coordinate(y))\" dominant-baseline=\"middle\">\(Markup.escape(entry.label))</text>"
            x += 23 + Double(entry.label.count) * 6.2 + 16
        }
        return out + "</g>"
    }
}
