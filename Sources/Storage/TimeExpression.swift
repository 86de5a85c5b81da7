/// A time or duration the user typed that is none of the accepted forms.
public struct TimeParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let text: String
    public let reason: String
    public var description: String { "'\(text)' \(reason)" }
}

/// Times as operators type them: ISO 8601 with `Z` or an offset (`2025-11-29T10:00:00Z`,
/// `2025-11-29T11:00:00.250+01:00`), a date alone (UTC midnight), Unix seconds
/// (`1764410000.25`), `now`, or relative to now (`-2h`, `-30m`, `-7d`, `-45s`, `-1w`).
public enum TimeExpression {
    static let usage = "is not a time: use ISO 8601 with Z or an offset (2025-11-29T10:00:00Z), a date, Unix seconds, now, or -2h / -30m / -7d"

    /// Unix seconds for `text`, with relative forms counted from `now`.
    public static func parse(_ text: String, now: Double) throws(TimeParseError) -> Double {
        let trimmed = text.trimmingSpaces
        if trimmed == "now" { return now }
        if let first = trimmed.first, first == "-" || first == "+", let span = duration(trimmed.dropFirst()) {
            return first == "-" ? now - span : now + span
        }
        if let seconds = unsigned(trimmed[...]) { return seconds }
        return try ISO8601.parse(trimmed)
    }

    /// Seconds for a duration such as `30d`, `12h`, `90m`, `45s`, `1w` or bare seconds (`3600`):
    /// the spelling of `storage.retention`.
    public static func duration(_ text: some StringProtocol) -> Double? {
        guard let unit = text.last else { return nil }
        let scale: Double? = switch unit {
        case "s": 1
        case "m": 60
        case "h": 3_600
        case "d": 86_400
        case "w": 604_800
        default: nil
        }
        guard let scale else { return unsigned(Substring(text)) }
        return unsigned(Substring(text.dropLast())).map { $0 * scale }
    }

    /// A non-negative decimal number of digits and at most one point, nothing else.
    static func unsigned(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              text.filter({ $0 == "." }).count <= 1, text != "." else { return nil }
        return Double(text)
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
