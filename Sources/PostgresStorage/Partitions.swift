import Storage

/// The daily partitions of `track_points`: `track_points_yYYYYmMMdDD` holds the points with
/// t in [day × 86,400, (day + 1) × 86,400), days counted in UTC from 1970-01-01.
enum Partitions {
    static let secondsPerDay = 86_400.0

    static func day(of t: Double) -> Int { Int((t / secondsPerDay).rounded(.down)) }

    /// The table name of a day's partition.
    static func name(of day: Int) -> String {
        let (y, m, d) = civil(fromDays: day)
        return "track_points_y\(y)m\(m < 10 ? "0" : "")\(m)d\(d < 10 ? "0" : "")\(d)"
    }

    static func create(_ day: Int) -> String {
        let from = Double(day) * secondsPerDay, to = Double(day + 1) * secondsPerDay
        return "CREATE TABLE IF NOT EXISTS \(name(of: day)) PARTITION OF track_points FOR VALUES FROM (\(literal(from))) TO (\(literal(to)))"
    }

    /// Every partition there, by day.
    static func list(_ db: PostgresConnection) throws(DatabaseError) -> [(day: Int, name: String)] {
        let rows = try db.execute("""
            SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'track_points'::regclass ORDER BY c.relname
            """)
        return (0..<rows.count).compactMap { row in
            guard let name = rows.string(row, 0), let day = day(ofName: name) else { return nil }
            return (day, name)
        }
    }

    /// Drops every partition that ends at or before `bound`; the days dropped and their rows.
    static func drop(_ db: PostgresConnection, before bound: Double) throws(DatabaseError) -> (days: [Int], rows: Int) {
        var days: [Int] = [], rows = 0
        for (day, name) in try list(db) where Double(day + 1) * secondsPerDay <= bound {
            // Counted for the pruned-rows statistic: one scan of a day nobody queries any more.
            rows += Int(try db.execute("SELECT count(*) FROM \(name)").int64(0, 0) ?? 0)
            try db.execute("DROP TABLE \(name)")
            days.append(day)
        }
        return (days, rows)
    }

    static func day(ofName name: String) -> Int? {
        let digits = name.split(whereSeparator: { !$0.isNumber })
        guard name.hasPrefix("track_points_y"), digits.count == 3,
              let y = Int(digits[0]), let m = Int(digits[1]), let d = Int(digits[2]) else { return nil }
        return days(fromCivil: y, m, d)
    }

    /// Howard Hinnant's days-from-civil and its inverse (proleptic Gregorian, UTC).
    static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
