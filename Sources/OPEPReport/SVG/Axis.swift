import Foundation

/// One axis of a chart: its quantity and unit, its domain and how its ticks are written.
public struct Axis {
    /// The quantity, e.g. "Pressure".
    public var label: String
    /// The unit, e.g. "cmH2O"; empty for none.
    public var unit: String
    /// Values shown, widened to round ticks unless `tight`.
    public var scale: NiceScale
    /// How a tick value is written; by default with as many decimals as the step needs.
    public var format: (Double) -> String

    public init(label: String, unit: String, range: ClosedRange<Double>, tickCount: Int = 5, tight: Bool = false, format: ((Double) -> String)? = nil) {
        self.label = label
        self.unit = unit
        let scale = NiceScale(range, count: tickCount, tight: tight)
        self.scale = scale
        let decimals = scale.decimals
        self.format = format ?? { String(format: "%.\(decimals)f", $0) }
    }

    /// "Pressure (cmH2O)".
    public var title: String { unit.isEmpty ? label : "\(label) (\(unit))" }

    var domain: ClosedRange<Double> { scale.domain }
}

/// Where a chart's data go on the page: the plot rectangle and the mapping of values into it.
public struct PlotArea {
    public var left: Double
    public var top: Double
    public var width: Double
    public var height: Double
    public var xDomain: ClosedRange<Double>
    public var yDomain: ClosedRange<Double>

    /// Horizontal position of `x`, relative to the plot's left edge.
    public func x(_ value: Double) -> Double {
        let span = xDomain.upperBound - xDomain.lowerBound
        return span > 0 ? (value - xDomain.lowerBound) / span * width : 0
    }

    /// Vertical position of `y`, relative to the plot's top edge (larger values higher up).
    public func y(_ value: Double) -> Double {
        let span = yDomain.upperBound - yDomain.lowerBound
        return span > 0 ? height - (value - yDomain.lowerBound) / span * height : height
    }

    /// Width on the page of `span` data units along x.
    public func xLength(_ span: Double) -> Double {
        let domain = xDomain.upperBound - xDomain.lowerBound
        return domain > 0 ? span / domain * width : 0
    }
}

/// Gridlines, ticks, tick labels and axis titles of a chart.
enum AxisRenderer {
    /// Width of a tick label in 11-pixel Helvetica, generously (0.62 of the font size a character).
    static func estimatedWidth(of text: String) -> Double { Double(text.count) * 11 * 0.62 }

    /// Draws the axes; a tick label that would run past the chart's right edge (`rightMargin`
    /// beyond the plot) ends at its tick instead of centring on it.
    static func render(x: Axis, y: Axis, area: PlotArea, rightMargin: Double) -> String {
        var out = "<g class=\"axes\" font-size=\"11\" fill=\"#333\">"
        let left = area.left, top = area.top, bottom = area.top + area.height, right = area.left + area.width
        for tick in y.scale.ticks where y.domain.contains(tick) {
            let py = Markup.coordinate(top + area.y(tick))
            out += "<line x1=\"\(Markup.coordinate(left))\" y1=\"\(py)\" x2=\"\(Markup.coordinate(right))\" y2=\"\(py)\" stroke=\"#ddd\" stroke-width=\"0.6\"/>"
            out += "<text x=\"\(Markup.coordinate(left - 6))\" y=\"\(py)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(Markup.escape(y.format(tick)))</text>"
        }
        for tick in x.scale.ticks where x.domain.contains(tick) {
            let position = left + area.x(tick)
            let px = Markup.coordinate(position)
            let text = x.format(tick)
            let anchor = position + Self.estimatedWidth(of: text) / 2 > right + rightMargin ? "end" : "middle"
            out += "<line x1=\"\(px)\" y1=\"\(Markup.coordinate(bottom))\" x2=\"\(px)\" y2=\"\(Markup.coordinate(bottom + 4))\" stroke=\"#333\" stroke-width=\"0.8\"/>"
            out += "<text x=\"\(px)\" y=\"\(Markup.coordinate(bottom + 16))\" text-anchor=\"\(anchor)\">\(Markup.escape(text))</text>"
        }
        out += "<rect x=\"\(Markup.coordinate(left))\" y=\"\(Markup.coordinate(top))\" width=\"\(Markup.coordinate(area.width))\" height=\"\(Markup.coordinate(area.height))\" fill=\"none\" stroke=\"#333\" stroke-width=\"0.8\"/>"
        out += "<text class=\"axis-title\" x=\"\(Markup.coordinate(left + area.width / 2))\" y=\"\(Markup.coordinate(bottom + 34))\" text-anchor=\"middle\" font-size=\"12\">\(Markup.escape(x.title))</text>"
        let cy = Markup.coordinate(top + area.height / 2)
        out += "<text class=\"axis-title\" x=\"14\" y=\"\(cy)\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 14 \(cy))\">\(Markup.escape(y.title))</text>"
        out += "</g>"
        return out
    }
}
