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
    /// through `PostgresBatchStore` (reconnecting after a failure, every `retryInterval`).
    /// The visit writes a stop cannot store go to the local file `journal`.
    public static func writer(url: String, journal: String, configuration: WriterConfiguration = WriterConfiguration(),
                              log: @escaping @Sendable (String) -> Void = { _ in },
                              onCommit: (@Sendable (UInt64) -> Void)? = nil) -> TrackWriter {
        let names = configuration.deviceNames, retention = configuration.retention
        return TrackWriter(store: url, journal: VisitJournal(path: journal), configuration: configuration, log: log,
                           onCommit: onCommit,
                           open: { try PostgresBatchStore(url: url, names: names, retention: retention) },
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
