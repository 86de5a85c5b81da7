import Storage

/// The daily partitions of `track_points`: `track_points_yYYYYmMMdDD` holds the points with
/// t in [day × 86,400, (day + 1) × 86,400), days counted in UTC from 1970-01-01.
enum Partitions {
    static let secondsPerDay = 86_400.0
    /// The advisory lock a batch that makes partitions takes (`pg_advisory_xact_lock`); the
    /// store's other keys: `PostgresSchema.migrationLock` …01, `PostgresWriterLock.key` …02.
    static let lock = 0x5768_6572_6561_6203

    static func day(of t: Double) -> Int { Int((t / secondsPerDay).rounded(.down)) }

    /// The table name of a day's partition.
    static func name(of day: Int) -> String {
        let (y, m, d) = ISO8601.civilFromDays(Int64(day))
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
        return Int(ISO8601.daysFromCivil(y, m, d))
    }
}
