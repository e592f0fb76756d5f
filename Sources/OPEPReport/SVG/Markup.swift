import Foundation

/// Escaping and number formatting shared by the SVG and HTML writers.
///
/// Every document is written as polyglot markup: valid HTML5 that is also well-formed XML (void
/// elements self-closed, only the five XML entities), so it can be checked with any XML parser.
public enum Markup {
    /// Text safe inside an element or a double-quoted attribute: `& < > " '` become entities.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default:
                // Control characters other than tab and newline are not allowed in XML at all.
                if character.value < 0x20, character != "\t", character != "\n" {
                    result += "\u{FFFD}"
                } else {
                    result.unicodeScalars.append(character)
                }
            }
        }
        return result
    }

    /// A coordinate with at most one decimal, without a trailing `.0` (keeps the files small).
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let tenths = (value * 10).rounded()
        if tenths.truncatingRemainder(dividingBy: 10) == 0 { return String(Int(tenths / 10)) }
        return String(format: "%.1f", tenths / 10)
    }

    /// A number with `digits` decimals, or "–" when there is none.
    public static func number(_ value: Double?, _ digits: Int) -> String {
        guard let value, value.isFinite else { return "–" }
        let text = String(format: "%.\(digits)f", value)
        return text == "-" + String(format: "%.\(digits)f", 0.0) ? String(format: "%.\(digits)f", 0.0) : text
    }

    /// A share 0-1 as a percentage with one decimal, or "–".
    public static func percent(_ share: Double?) -> String {
        guard let share, share.isFinite else { return "–" }
        return String(format: "%.1f %%", share * 100)
    }

    /// `m:ss.s` for a time in a session.
    public static func clock(_ seconds: Double) -> String {
        let tenths = Int((max(0, seconds) * 10).rounded())
        let minutes = tenths / 600
        let rest = Double(tenths % 600) / 10
        return "\(minutes):\(rest < 10 ? "0" : "")\(String(format: "%.1f", rest))"
    }
}
