internal import CSQLite

/// A failed SQLite call: the result codes, SQLite's message and the SQL that failed.
///
/// One type for every database failure, so callers log one thing and classify it once.
public struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary result code (`SQLITE_FULL`, `SQLITE_READONLY`, …), the low byte of `extendedCode`.
    public let resultCode: Int32
    /// The extended result code (`SQLITE_READONLY_DBMOVED`, `SQLITE_IOERR_WRITE`, …).
    public let extendedCode: Int32
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.resultCode = extendedCode & 0xFF
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// What went wrong, in the words an operator acts on.
    public var kind: StorageStatus {
        switch resultCode {
        case SQLITE_FULL: .diskFull
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH: .readOnly
        case SQLITE_BUSY, SQLITE_LOCKED: .locked
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
        default: .failing
        }
    }

    public var description: String {
        var text = "\(message) (SQLite code \(resultCode), extended \(extendedCode))"
        if let sql { text += " in: \(sql)" }
        return text
    }

    /// An error from the connection's last call, read while the handle is still valid.
    static func last(_ db: OpaquePointer?, code: Int32, sql: String? = nil) -> DatabaseError {
        guard let db else {
            return DatabaseError(extendedCode: code, message: String(cString: sqlite3_errstr(code)), sql: sql)
        }
        let extended = sqlite3_extended_errcode(db)
        return DatabaseError(extendedCode: extended == 0 ? code : extended,
                             message: String(cString: sqlite3_errmsg(db)), sql: sql)
    }

    /// An error raised by this module rather than by SQLite (a schema the tool does not know).
    static func misuse(_ message: String, sql: String? = nil) -> DatabaseError {
        DatabaseError(extendedCode: SQLITE_MISUSE, message: message, sql: sql)
    }
}

/// The health of a store, as a status value for logs and metrics.
public enum StorageStatus: String, Sendable, Equatable {
    case ok
    case diskFull = "disk_full"
    case readOnly = "read_only"
    case locked
    case corrupt
    /// Any other failure (I/O error, cannot open); the log line says which.
    case failing
    case closed
}
