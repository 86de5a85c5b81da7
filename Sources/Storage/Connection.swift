internal import CSQLite

/// `SQLITE_TRANSIENT` is a C macro Swift cannot import: it tells SQLite to copy bound bytes.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection, closed when the last reference goes.
///
/// Not `Sendable`: a connection belongs to one thread at a time (it is opened with
/// `SQLITE_OPEN_NOMUTEX`). The writer thread opens its own; readers open theirs.
public final class Connection {
    /// Whether the connection may write. Read-only connections never create the file.
    public enum Mode: Sendable { case readWrite, readOnly }

    let handle: OpaquePointer
    public let path: String

    /// Opens (creating it when writable) the database at `path`.
    ///
    /// A writable connection switches the file to WAL with `synchronous = NORMAL`: readers never
    /// block the writer, and a commit survives a killed process (not a power cut).
    public init(path: String, mode: Mode = .readWrite, busyTimeout: Double = 5) throws(DatabaseError) {
        var db: OpaquePointer?
        let flags = (mode == .readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let error = DatabaseError.last(db, code: rc)
            sqlite3_close_v2(db)
            throw DatabaseError(extendedCode: error.extendedCode, message: "\(path): \(error.message)",
                                systemErrno: error.systemErrno)
        }
        handle = db
        self.path = path
        // SQLite quietly opens a file it cannot write read-only; a writer must hear it now,
        // not as a puzzling error about the WAL's shared-memory file later.
        if mode == .readWrite && sqlite3_db_readonly(db, "main") == 1 {
            throw DatabaseError(extendedCode: SQLITE_READONLY,
                                message: "\(path): the database file or its directory is read-only")
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Int32(max(0, busyTimeout) * 1000))
        try execute("PRAGMA foreign_keys = ON")
        if mode == .readWrite {
            let journal = try prepare("PRAGMA journal_mode = WAL")
            _ = try journal.step()
            try execute("PRAGMA synchronous = NORMAL")
        }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more statements that return no rows the caller needs.
    public func execute(_ sql: String) throws(DatabaseError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw DatabaseError.last(handle, code: rc, sql: sql) }
    }

    /// Compiles one statement; reuse it for every row of a batch.
    public func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// `IMMEDIATE` takes the write lock up front, so a busy database fails here, within the
    /// busy timeout, instead of halfway through a batch.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // A failed COMMIT or a statement error can leave SQLite already rolled back.
            if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    /// Rolls back the open transaction, if any (after a failed statement or COMMIT).
    func rollbackIfOpen() {
        if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs a query whose answer is one integer (`PRAGMA user_version`, `SELECT count(*) …`).
    public func integer(_ sql: String) throws(DatabaseError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.int64(0)
    }

    /// Runs a query whose answer is one text value (`PRAGMA integrity_check`, `journal_mode`).
    public func text(_ sql: String) throws(DatabaseError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.string(0)
    }

    /// `SQLITE_OK`-or-throw, the one place a result code becomes an error.
    func check(_ rc: Int32, sql: String? = nil) throws(DatabaseError) {
        guard rc == SQLITE_OK else { throw DatabaseError.last(handle, code: rc, sql: sql) }
    }
}
