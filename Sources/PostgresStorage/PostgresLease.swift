#if canImport(Glibc)
import Glibc
#endif
import Storage

/// The right to be the active aggregator of one shard: a session advisory lock in the shared
/// PostgreSQL, held by a connection of its own for as long as the holder runs.
///
/// A lock, not a lease row with an expiry: PostgreSQL releases it the moment the holder's
/// session ends (a `kill -9`, a crash, a lost connection), so a standby takes over within its
/// polling interval without waiting out an expiry, and no two clocks need to agree. The other
/// side: a PostgreSQL restart ends every session, the holder's lock with it. The holder finds
/// that out by asking (`isHeld`) and must stop publishing; whoever takes the lock next recovers
/// the shard from the store.
///
/// The key is the pair (`classKey`, shard): `classKey` spells "Wher"; the shard is `index << 16 |
/// count`, so `pg_locks` shows which shard a session holds (classid, objid, objsubid 2).
public final class PostgresLease: @unchecked Sendable {
    public let url: String
    public let shard: (index: Int, count: Int)
    private var db: PostgresConnection?
    static let classKey: Int32 = 0x5768_6572

    public init(url: String, shard: (index: Int, count: Int)) {
        self.url = url
        self.shard = shard
    }

    var objectKey: Int32 { Int32(truncatingIfNeeded: shard.index << 16 | shard.count) }

    /// Tries to take the lock once: true when this session holds it now. Throws when the
    /// server cannot be reached (the caller retries).
    public func take() throws(DatabaseError) -> Bool {
        let connection: PostgresConnection
        if let db { connection = db } else { connection = try PostgresConnection(url: url) }
        db = connection
        do {
            return try connection.execute("SELECT pg_try_advisory_lock(\(Self.classKey), \(objectKey))").string(0, 0) == "t"
        } catch {
            db = nil
            throw error
        }
    }

    /// The session holding the lock now, `address, pid N`, for a standby's log line; nil when
    /// none does or the server cannot say.
    public func holder() -> String? {
        guard let db else { return nil }
        return try? db.execute("""
            SELECT coalesce(a.client_addr::text, 'local socket') || ', pid ' || a.pid || ', ' || a.application_name
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.classid = \(UInt32(bitPattern: Self.classKey)) AND l.objid = \(objectKey)
              AND l.objsubid = 2 AND l.granted LIMIT 1
            """).string(0, 0)
    }

    /// Whether this session still holds the lock: asked of the server, so a restart (which
    /// ended the session) or a lost connection says no. A no is final: the connection is
    /// dropped, and only `take()` may hold the lock again.
    public func isHeld() -> Bool {
        guard let db else { return false }
        let held = try? db.execute("""
            SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
              AND classid = \(UInt32(bitPattern: Self.classKey)) AND objid = \(objectKey) AND objsubid = 2 AND granted
            """).string(0, 0)
        if held == "1" { return true }
        self.db = nil
        return false
    }

    /// Ends the session, releasing the lock.
    public func release() { db = nil }
}
