/// ISO 8601 dates and times in UTC, without Foundation: civil-date arithmetic on the
/// proleptic Gregorian calendar (Howard Hinnant's days-from-civil).
package enum ISO8601 {
    /// `YYYY-MM-DD`, or that followed by `T` (or a space) `hh:mm[:ss[.fff]]` and `Z` or `±hh[:mm]`.
    static func parse(_ text: String) throws(TimeParseError) -> Double {
        let fail = TimeParseError(text: text, reason: TimeExpression.usage)
        var cursor = Cursor(Array(text.utf8))
        guard let year = cursor.number(4), cursor.skip("-"), let month = cursor.number(2), cursor.skip("-"),
              let day = cursor.number(2), (1...12).contains(month), (1...daysIn(month, year)).contains(day)
        else { throw fail }
        let midnight = Double(daysFromCivil(year, month, day)) * 86_400
        if cursor.atEnd { return midnight }
        guard cursor.skip("T") || cursor.skip("t") || cursor.skip(" "),
              let hour = cursor.number(2), cursor.skip(":"), let minute = cursor.number(2),
              hour < 24, minute < 60 else { throw fail }
        var seconds = 0.0
        if cursor.skip(":") {
            guard let whole = cursor.number(2), whole < 61 else { throw fail }
            seconds = Double(whole) + cursor.fraction()
        }
        let local = midnight + Double(hour * 3_600 + minute * 60) + seconds
        guard let offset = cursor.offset(), cursor.atEnd else {
            throw TimeParseError(text: text, reason: "needs a time zone: add Z (UTC) or an offset such as +01:00")
        }
        return local - Double(offset)
    }

    /// `2025-11-29T10:00:00.250Z` for Unix seconds, to the millisecond; a time no count of
    /// milliseconds holds (NaN, infinite, or beyond ±292 million years) as its number.
    static func format(_ t: Double) -> String {
        let scaled = (t * 1000).rounded()
        guard scaled.magnitude < 9e18 else { return "\(t)" }
        let millis = Int64(scaled)
        let (days, dayMillis) = millis.quotientAndRemainder(dividingBy: 86_400_000)
        let (d, ms) = dayMillis < 0 ? (days - 1, dayMillis + 86_400_000) : (days, dayMillis)
        let (year, month, day) = civilFromDays(d)
        let secs = ms / 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):"
            + "\(pad(secs % 60, 2)).\(pad(ms % 1000, 3))Z"
    }

    package static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    package static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// A small reader over the text's bytes; every read checks what is left.
    private struct Cursor {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func skip(_ c: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: c) else { return false }
            index += 1
            return true
        }

        /// Exactly `count` digits.
        mutating func number(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for b in bytes[index..<index + count] {
                guard b >= 0x30 && b <= 0x39 else { return nil }
                value = value * 10 + Int(b - 0x30)
            }
            index += count
            return value
        }

        /// `.fff…` (or `,fff`) after the seconds, as a fraction; 0 when absent.
        mutating func fraction() -> Double {
            guard skip(".") || skip(",") else { return 0 }
            var value = 0.0, scale = 0.1
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                value += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            return value
        }

        /// `Z`, `±hh`, `±hhmm` or `±hh:mm` as seconds east of UTC; `nil` when absent or malformed.
        mutating func offset() -> Int? {
            if skip("Z") || skip("z") { return 0 }
            let sign: Int
            if skip("+") { sign = 1 } else if skip("-") { sign = -1 } else { return nil }
            guard let hours = number(2), hours <= 18 else { return nil }
            var minutes = 0
            if !atEnd {
                _ = skip(":")
                guard let m = number(2), m < 60 else { return nil }
                minutes = m
            }
            return sign * (hours * 3_600 + minutes * 60)
        }
    }
}
