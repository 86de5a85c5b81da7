#if canImport(Glibc)
import Glibc
#endif
import Storage

/// Opening a store from a `--db` value: a `postgresql://` (or `postgres://`) URL is
/// PostgreSQL, anything else an SQLite file.
public enum Stores {
    /// A reader of the store `db` names.
    public static func reader(_ db: String) throws -> any TrackQueries {
        switch StoreLocation(db) {
        case .file(let path): try TrackReader(path: path)
        case .postgres(let url): try PostgresReader(url: url)
        }
    }
}

/// The PostgreSQL store's writer side.
public enum PostgresStore {
    /// Connects, creates and migrates the schema: the aggregator's start-up check, which fails
    /// loudly on a server that refuses or a database a newer release migrated. The versions
    /// applied (none when it was up to date).
    @discardableResult
    public static func prepare(url: String) throws -> [Int] {
        try PostgresSchema.migrate(PostgresConnection(url: url))
    }

    /// A track writer on `url`: SQLite's queue, tickets, retries and journal, writing batches
    /// through `PostgresBatchStore`. After a failure the writer tries every `retryInterval`;
    /// connecting again backs off (`Backoff`) while the server keeps refusing. The visit
    /// writes a stop cannot store go to the local file `journal`.
    public static func writer(url: String, journal: String, configuration: WriterConfiguration = WriterConfiguration(),
                              log: @escaping @Sendable (String) -> Void = { _ in },
                              onCommit: (@Sendable (UInt64) -> Void)? = nil) -> TrackWriter {
        let names = configuration.deviceNames, retention = configuration.retention
        let backoff = Backoff(first: configuration.retryInterval)
        return TrackWriter(store: url, journal: VisitJournal(path: journal), configuration: configuration, log: log,
                           onCommit: onCommit,
                           open: {
                               try backoff.attempt { () throws(DatabaseError) in
                                   try PostgresBatchStore(url: url, names: names, retention: retention)
                               }
                           },
                           reader: { try PostgresReader(url: url) })
    }

    /// Where an aggregator on PostgreSQL keeps the visit writes a stop could not store:
    /// `$STATE_DIRECTORY/postgres.pending` under systemd (its `StateDirectory=`), else
    /// `whereabouts-postgres.pending` in the working directory.
    public static func defaultJournal() -> String {
        if let state = getenv("STATE_DIRECTORY").map({ String(cString: $0) }), !state.isEmpty {
            // systemd may list several directories, separated by colons: the first is ours.
            return String(state.prefix { $0 != ":" }) + "/postgres.pending"
        }
        return "whereabouts-postgres.pending"
    }
}

/// One writer per database: a session advisory lock, held by its own connection for the
/// aggregator's life. A second aggregator on the same database would take this one's open
/// visits for a crash's, close them and publish exits for devices still there.
///
/// The lock lives as long as its session: a PostgreSQL restart ends it (the writer goes on
/// writing; another aggregator could take the lock then).
public final class PostgresWriterLock: @unchecked Sendable {
    private let db: PostgresConnection
    static let key = 0x5768_6572_6561_6202

    /// Takes the lock or throws, naming the holder's address when the server knows it.
    public init(url: String) throws {
        db = try PostgresConnection(url: url)
        guard try db.execute("SELECT pg_try_advisory_lock(\(Self.key))").string(0, 0) == "t" else {
            let holder = try db.execute("""
                SELECT coalesce(a.client_addr::text, 'local socket') || ', pid ' || a.pid FROM pg_locks l
                JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.objid = \(Self.key & 0xFFFF_FFFF) AND l.granted LIMIT 1
                """).string(0, 0) ?? "unknown"
            throw DatabaseError(postgres: "\(url): another aggregator writes to this database (session \(holder))",
                                sqlState: "55P03")
        }
    }
}

/// Connection attempts spaced out while the server refuses them: after n failures in a row
/// the next attempt waits `first` × 2^(n−1), at most `longest` (1, 2, 4, 8 s by default), so a
/// server coming back after a crash is not met with one connection a second from every
/// aggregator. A success starts again at once. Used on the writer thread only.
final class Backoff: @unchecked Sendable {
    private let first: Double, longest: Double
    private var failures = 0
    private var notBefore = -Double.infinity

    init(first: Double, longest: Double = 8) {
        self.first = max(first, 0.01)
        self.longest = max(longest, self.first)
    }

    func attempt<T>(_ connect: () throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        let now = monotonicNow()
        guard now >= notBefore else {
            throw DatabaseError(postgres: "not connected; next attempt in \(Int((notBefore - now).rounded(.up))) s", sqlState: "")
        }
        do {
            let value = try connect()
            failures = 0
            return value
        } catch {
            failures += 1
            notBefore = now + min(longest, first * Double(1 << min(failures - 1, 20)))
            throw error
        }
    }
}

/// Seconds on the monotonic clock (the backoff must not jump with the wall clock).
private func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
