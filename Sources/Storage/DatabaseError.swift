internal import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// The operating system's `errno` behind an I/O failure (ENOSPC, EROFS, …), 0 when none.
    public let systemErrno: Int32
    /// PostgreSQL's SQLSTATE ("08006", "53100", …) when the store is PostgreSQL, "" for a
    /// connection that failed without one; nil for SQLite.
    public let sqlState: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.sqlState = nil
        self.resultCode = extendedCode & 0xFF
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// A PostgreSQL failure: its message, its SQLSTATE ("" when there is none, as for a
    /// refused connection) and the SQL that failed.
    public init(postgres message: String, sqlState: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.resultCode = SQLITE_ERROR
        self.extendedCode = SQLITE_ERROR
        self.message = message
        self.sql = sql
        self.systemErrno = 0
    }

    /// What went wrong, in the words an operator acts on.
    public var kind: StorageStatus {
        if let sqlState {
            // SQLSTATE classes: 53100 disk full, 25006 read-only transaction, 40 serialization or
            // deadlock, 55P03 lock not available; a connection lost is plain failing.
            return switch sqlState {
            case "53100": .diskFull
            case "25006": .readOnly
            case "55P03", "40001", "40P01": .locked
            default: .failing
            }
        }
        // SQLite reports a full or read-only disk as an I/O or cannot-open error at times;
        // the OS's own errno says which.
        switch systemErrno {
        case ENOSPC, EDQUOT: return .diskFull
        case EROFS, EACCES, EPERM: return .readOnly
        default: break
        }
        return switch resultCode {
        case SQLITE_FULL: .diskFull
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH: .readOnly
        case SQLITE_BUSY, SQLITE_LOCKED: .locked
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
        default: .failing
        }
    }

    public var description: String {
        if let sqlState {
            var text = "\(message) (PostgreSQL" + (sqlState.isEmpty ? ")" : " SQLSTATE \(sqlState))")
            if let sql { text += " in: \(sql.prefix(200))" }
            return text
        }
        var text = "\(message) (SQLite code \(resultCode), extended \(extendedCode)"
        text += systemErrno == 0 ? ")" : ", errno \(systemErrno): \(String(cString: strerror(systemErrno))))"
        if let sql { text += " in: \(sql)" }
        return text
    }

    /// An error from the connection's last call, read while the handle is still valid.
    static func last(_ db: OpaquePointer?, code: Int32, sql: String? = nil) -> DatabaseError {
        guard let db else {
            return DatabaseError(extendedCode: code, message: String(cString: sqlite3_errstr(code)), sql: sql)
        }
        let extended = sqlite3_extended_errcode(db)
        let full = extended == 0 ? code : extended
        // errno is only meaningful right after an OS call failed; otherwise it is stale.
        let osFailure = [SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_FULL, SQLITE_READONLY].contains(full & 0xFF)
        return DatabaseError(extendedCode: full, message: String(cString: sqlite3_errmsg(db)), sql: sql,
                             systemErrno: osFailure ? sqlite3_system_errno(db) : 0)
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
