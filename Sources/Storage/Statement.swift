internal import CSQLite

/// A compiled statement, finalized when the last reference goes.
///
/// Bind with typed `bind(_:at:)` (1-based, as SQLite counts), `step()` through the rows,
/// read typed columns (0-based), `reset()` and bind again for the next row of a batch.
public final class Statement {
    let handle: OpaquePointer
    public let sql: String
    // Keeps the connection open as long as a statement of it lives.
    private let connection: Connection

    init(connection: Connection, sql: String) throws(DatabaseError) {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(connection.handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw DatabaseError.last(connection.handle, code: rc, sql: sql) }
        handle = stmt
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds an integer to the 1-based parameter `index` (`?1` is 1).
    public func bind(_ value: Int64, at index: Int32) throws(DatabaseError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds an integer (as SQLite's 64-bit INTEGER).
    public func bind(_ value: Int, at index: Int32) throws(DatabaseError) {
        try bind(Int64(value), at: index)
    }

    /// Binds a REAL.
    public func bind(_ value: Double, at index: Int32) throws(DatabaseError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds TEXT; SQLite copies the bytes, so the string need not outlive the call.
    public func bind(_ value: String, at index: Int32) throws(DatabaseError) {
        // The string's own UTF-8 with its length: no NUL-terminated copy, no strlen.
        var value = value
        let statement = handle
        let rc = value.withUTF8 { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(statement, index, "", 0, sqliteTransient)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(statement, index, $0, Int32(bytes.count), sqliteTransient)
            }
        }
        try check(rc)
    }

    /// Binds NULL.
    public func bindNull(at index: Int32) throws(DatabaseError) {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Binds the value, or NULL when it is `nil`.
    public func bind(_ value: String?, at index: Int32) throws(DatabaseError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds the value, or NULL when it is `nil`.
    public func bind(_ value: Double?, at index: Int32) throws(DatabaseError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds the value, or NULL when it is `nil`.
    public func bind(_ value: Int64?, at index: Int32) throws(DatabaseError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Advances to the next row: `true` when a row is there to read, `false` when done.
    @discardableResult
    public func step() throws(DatabaseError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw DatabaseError.last(connection.handle, code: rc, sql: sql)
        }
    }

    /// Makes the statement ready to run again; bindings are cleared so none leaks into the next row.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Steps to completion (an INSERT, UPDATE or DELETE just bound), then resets for the next row.
    public func run() throws(DatabaseError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Whether the 0-based `column` of the current row is NULL.
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    /// The column as an integer (0 for NULL).
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    /// The column as a REAL (0 for NULL).
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The column as text, `nil` for NULL.
    public func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as a REAL, `nil` for NULL.
    public func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    private func check(_ rc: Int32) throws(DatabaseError) {
        try connection.check(rc, sql: sql)
    }
}
