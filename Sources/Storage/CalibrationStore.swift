/// One learned value of self-calibration as stored (`self_calibration` table): a node's offset,
/// a floor's exponent, a device's power correction or a counter, by name.
public struct CalibrationRecord: Sendable, Equatable {
    public enum Kind: String, Sendable { case node, floor, device, counter }
    public var kind: Kind
    public var name: String
    public var value: Double
    public var evidence: Double
    public init(kind: Kind, name: String, value: Double, evidence: Double = 0) {
        self.kind = kind; self.name = name; self.value = value; self.evidence = evidence
    }
}

/// Where the learned self-calibration is kept: the SQLite store's table (`CalibrationStore`) or
/// PostgreSQL's, one set per shard (`PostgresCalibrationStore`). One thread at a time: the
/// aggregator loads at start and saves on one serial queue.
public protocol CalibrationStoring: AnyObject, Sendable {
    /// Every stored record; unknown kinds (a newer version's) are skipped.
    func load() throws(DatabaseError) -> [CalibrationRecord]
    /// Replaces what is stored with `records` (finite ones), in one transaction, stamped `at` (Unix seconds).
    func save(_ records: [CalibrationRecord], at t: Double) throws
    /// Where it is, for the log: a path or a URL.
    var location: String { get }
}

/// Reads and replaces the learned self-calibration in an SQLite store, on its own connection:
/// a few dozen rows now and then, beside the track writer's.
public final class CalibrationStore: CalibrationStoring, @unchecked Sendable {
    let db: Connection

    public let location: String

    /// Opens the store at `path` (migrated already: `Schema.prepare`).
    public init(path: String) throws(DatabaseError) {
        db = try Connection(path: path)
        location = path
    }

    public func load() throws(DatabaseError) -> [CalibrationRecord] {
        let statement = try db.prepare("SELECT kind, name, value, evidence FROM self_calibration ORDER BY kind, name")
        var records: [CalibrationRecord] = []
        while try statement.step() {
            guard let kind = statement.string(0).flatMap(CalibrationRecord.Kind.init(rawValue:)), let name = statement.string(1) else { continue }
            records.append(CalibrationRecord(kind: kind, name: name, value: statement.double(2), evidence: statement.double(3)))
        }
        return records
    }

    public func save(_ records: [CalibrationRecord], at t: Double) throws {
        try db.transaction {
            try db.execute("DELETE FROM self_calibration")
            let insert = try db.prepare("INSERT OR REPLACE INTO self_calibration (kind, name, value, evidence, saved) VALUES (?, ?, ?, ?, ?)")
            for r in records where r.value.isFinite && r.evidence.isFinite {
                insert.reset()
                try insert.bind(r.kind.rawValue, at: 1)
                try insert.bind(r.name, at: 2)
                try insert.bind(r.value, at: 3)
                try insert.bind(r.evidence, at: 4)
                try insert.bind(t, at: 5)
                try insert.run()
            }
        }
    }
}
