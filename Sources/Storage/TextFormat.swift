/// Small text encoders for exports: CSV fields, JSON strings and fixed-point numbers.
enum TextFormat {
    /// A CSV field (RFC 4180): quoted only when it holds a comma, quote or line break.
    static func csv(_ field: String?) -> String {
        guard let field else { return "" }
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacing("\"", with: "\"\"") + "\""
    }

    /// A JSON string literal, or `null`.
    static func json(_ text: String?) -> String {
        guard let text else { return "null" }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON number with at most `decimals` places (trailing zeros trimmed), or `null`.
    static func json(_ value: Double?, decimals: Int = 3) -> String {
        guard let value, value.isFinite else { return "null" }
        return fixed(value, decimals: decimals, trim: true)
    }

    /// Unix seconds with exactly three decimals, as docs/protocol.md#mqtt-topics-and-payloads writes times.
    static func time(_ t: Double) -> String { fixed(t, decimals: 3, trim: false) }

    /// `value` rounded to `decimals` places without Foundation's formatter.
    static func fixed(_ value: Double, decimals: Int, trim: Bool) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value.magnitude * Double(scale)).rounded()
        guard value.isFinite, scaled < 9e15 else { return "\(value)" }
        let units = Int64(scaled)
        var text = (value < 0 && units != 0 ? "-" : "") + String(units / scale)
        guard decimals > 0 else { return text }
        var digits = String(units % scale)
        digits = String(repeating: "0", count: decimals - digits.count) + digits
        if trim { digits = String(digits.reversed().drop(while: { $0 == "0" }).reversed()) }
        if !digits.isEmpty { text += "." + digits }
        return text
    }
}
