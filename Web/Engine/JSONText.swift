// JSON for the page, written by hand because Embedded Swift has no Codable. The layout is that of
// Foundation's JSONEncoder with `.sortedKeys` and `.withoutEscapingSlashes` (and `.prettyPrinted`
// when asked), so the page's documents are byte for byte those of `opep analyze --format json`.

/// A JSON value. Objects keep their members as given; ``text(pretty:)`` sorts them by key.
indirect enum JSONValue {
    case number(Double)
    case string(String)
    case bool(Bool)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// An object without the members whose value is nil, as synthesized `Encodable` leaves them out.
    static func members(_ members: [(String, JSONValue?)]) -> JSONValue {
        var kept: [(String, JSONValue)] = []
        for (key, value) in members {
            if let value { kept.append((key, value)) }
        }
        return .object(kept)
    }

    static func integer(_ value: Int) -> JSONValue { .number(Double(value)) }
    /// A number, or nothing (the member is left out) for nil.
    static func value(_ value: Double?) -> JSONValue? { value.map { .number($0) } }
    static func value(_ value: Int?) -> JSONValue? { value.map { .number(Double($0)) } }

    /// The UTF-8 text: compact, or with two-space indentation and `"key" : value` members.
    func text(pretty: Bool) -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out, pretty: pretty, depth: 0)
        return out
    }

    private func write(into out: inout [UInt8], pretty: Bool, depth: Int) {
        switch self {
        case let .number(value):
            Self.writeNumber(value, into: &out)
        case let .string(text):
            Self.writeString(text, into: &out)
        case let .bool(flag):
            out.append(contentsOf: (flag ? "true" : "false").utf8)
        case let .array(items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(into: &out, pretty: pretty, depth: depth + 1)
                item.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            if items.isEmpty, pretty { out.append(UInt8(ascii: "\n")) }
            Self.newline(into: &out, pretty: pretty, depth: depth)
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            out.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            for (index, (key, value)) in sorted.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(into: &out, pretty: pretty, depth: depth + 1)
                Self.writeString(key, into: &out)
                out.append(contentsOf: (pretty ? " : " : ":").utf8)
                value.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            if members.isEmpty, pretty { out.append(UInt8(ascii: "\n")) }
            Self.newline(into: &out, pretty: pretty, depth: depth)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(into out: inout [UInt8], pretty: Bool, depth: Int) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// Whole numbers as integers, others as Swift prints them (the shortest text that reads back
    /// as the same double); JSON has no NaN or infinity, so those are written as null.
    private static func writeNumber(_ value: Double, into out: inout [UInt8]) {
        if !value.isFinite {
            out.append(contentsOf: "null".utf8)
        } else if value == value.rounded(), value.magnitude < 9.007_199_254_740_992e15 {
            out.append(contentsOf: String(Int64(value)).utf8)
        } else {
            out.append(contentsOf: value.description.utf8)
        }
    }

    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x08: out.append(contentsOf: "\\b".utf8)
            case 0x0C: out.append(contentsOf: "\\f".utf8)
            case 0..<0x20:
                let digits: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
