import Foundation

/// The frame of every report: one self-contained HTML file (inline CSS and SVG, no scripts, no
/// external references) that reads well on screen and prints to A4 or Letter.
enum HTMLPage {
    static func render(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>\(Markup.escape(title))</title>
        <style>
        \(stylesheet)
        </style>
        </head>
        <body>
        <main>
        \(body)
        </main>
        </body>
        </html>

        """
    }

    /// A section heading with its anchor.
    static func heading(_ text: String, id: String) -> String {
        "<h2 id=\"\(Markup.escape(id))\">\(Markup.escape(text))</h2>"
    }

    /// A figure with a chart and a caption.
    static func figure(_ chart: Chart, caption: String, id: String) -> String {
        "<figure id=\"\(Markup.escape(id))\">\(chart.svg())<figcaption>\(Markup.escape(caption))</figcaption></figure>"
    }

    /// Key facts as a grid of labelled values.
    static func facts(_ items: [(label: String, value: String)]) -> String {
        var out = "<dl class=\"facts\">"
        for item in items {
            out += "<div><dt>\(Markup.escape(item.label))</dt><dd>\(Markup.escape(item.value))</dd></div>"
        }
        return out + "</dl>"
    }

    /// A table with a header row; each cell is already escaped markup.
    static func table(id: String, caption: String?, header: [String], numeric: Set<Int>, rows: [(attributes: String, cells: [String])]) -> String {
        var out = "<table id=\"\(Markup.escape(id))\">"
        if let caption { out += "<caption>\(Markup.escape(caption))</caption>" }
        out += "<thead><tr>"
        for (index, title) in header.enumerated() {
            out += "<th scope=\"col\"\(numeric.contains(index) ? " class=\"num\"" : "")>\(Markup.escape(title))</th>"
        }
        out += "</tr></thead><tbody>"
        for row in rows {
            out += "<tr\(row.attributes.isEmpty ? "" : " " + row.attributes)>"
            for (index, cell) in row.cells.enumerated() {
                out += "<td\(numeric.contains(index) ? " class=\"num\"" : "")>\(cell)</td>"
            }
            out += "</tr>"
        }
        return out + "</tbody></table>"
    }

    static let stylesheet = """
        :root { color-scheme: light; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 Helvetica, Arial, sans-serif; color: #1a1a1a; background: #fff; }
        main { max-width: 960px; margin: 0 auto; padding: 24px 28px 40px; }
        h1 { font-size: 22px; margin: 0 0 4px; }
        h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ccc; padding-bottom: 3px; }
        .meta { color: #555; margin: 0 0 12px; }
        .meta span { margin-right: 16px; white-space: nowrap; }
        .facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(165px, 1fr)); gap: 8px; margin: 12px 0; }
        .facts div { border: 1px solid #ddd; border-radius: 4px; padding: 6px 9px; }
        .facts dt { font-size: 11px; color: #666; text-transform: uppercase; letter-spacing: 0.03em; }
        .facts dd { margin: 2px 0 0; font-size: 17px; font-weight: 600; }
        figure { margin: 10px 0 18px; }
        figcaption { font-size: 12px; color: #555; margin-top: 2px; }
        svg.chart { display: block; width: 100%; height: auto; }
        table { border-collapse: collapse; width: 100%; font-size: 12.5px; margin: 8px 0 16px; }
        caption { text-align: left; font-weight: 600; padding: 4px 0; }
        th, td { border-bottom: 1px solid #e2e2e2; padding: 3px 6px; text-align: left; vertical-align: top; }
        th { background: #f3f3f3; font-weight: 600; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
        .flag { display: inline-block; font-size: 11px; padding: 0 5px; margin: 0 3px 2px 0; border-radius: 3px; background: #fde2c8; color: #7a3b00; white-space: nowrap; }
        .flag.ok { background: #dff2df; color: #1d5e1d; }
        .note { font-size: 12px; color: #555; }
        @page { margin: 12mm; }
        @media print {
          body { font-size: 10.5pt; }
          main { max-width: none; padding: 0; }
          h2 { break-after: avoid; page-break-after: avoid; }
          figure, .facts, tr { break-inside: avoid; page-break-inside: avoid; }
          thead { display: table-header-group; }
          section.page { break-before: page; page-break-before: always; }
          .facts div, th { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        }
        """
}
