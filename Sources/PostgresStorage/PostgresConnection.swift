internal import CPostgres
#if canImport(Glibc)
import Glibc
#endif
import Storage

/// One libpq connection, closed when the last reference goes. Not `Sendable`: a connection
/// belongs to one thread at a time (the writer thread, or one reader).
///
/// The URL names host, port, database and user; a password in it is refused. libpq takes the
/// password from the file `PGPASSFILE` names (default `~/.pgpass`) or from `PGPASSWORD` in the
/// environment, so it never appears on a command line or in `ps`.
final class PostgresConnection {
    private let handle: OpaquePointer
    /// The URL as given (it carries no password).
    let url: String

    /// Connects; throws a `DatabaseError` whose message is libpq's.
    init(url: String) throws(DatabaseError) {
        try PostgresURL.check(url)
        self.url = url
        // Never wait longer than this for a server that does not answer: the writer retries.
        guard let db = PQconnectdb(PostgresURL.withDefaults(url)) else {
            throw DatabaseError(postgres: "\(url): out of memory", sqlState: "")
        }
        guard PQstatus(db) == CONNECTION_OK else {
            let message = Self.text(PQerrorMessage(db))
            PQfinish(db)
            throw DatabaseError(postgres: "\(url): \(message)", sqlState: "")
        }
        handle = db
        // Quiet NOTICEs (CREATE … IF NOT EXISTS says "already exists, skipping" otherwise).
        try execute("SET client_min_messages = warning")
    }

    deinit { PQfinish(handle) }

    /// Runs one or more statements in one round trip (the simple query protocol: several
    /// statements without BEGIN/COMMIT are one transaction); returns the last result's rows.
    @discardableResult
    func execute(_ sql: String) throws(DatabaseError) -> Rows {
        try Rows(PQexec(handle, sql), connection: handle, sql: sql)
    }

    /// One statement with text parameters `$1…` (nil is NULL); its rows.
    func query(_ sql: String, _ parameters: [String?]) throws(DatabaseError) -> Rows {
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        var pointers = copies.map { UnsafePointer($0) }
        let result = pointers.withUnsafeMutableBufferPointer { buffer in
            PQexecParams(handle, sql, Int32(buffer.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        return try Rows(result, connection: handle, sql: sql)
    }

    static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        var message = String(cString: pointer)
        while message.last?.isNewline == true { message.removeLast() }
        return message.replacingNewlines()
    }
}

/// A query's result in text form, freed when it goes.
final class Rows {
    private let result: OpaquePointer
    let count: Int

    fileprivate init(_ result: OpaquePointer?, connection: OpaquePointer, sql: String) throws(DatabaseError) {
        guard let result else {
            throw DatabaseError(postgres: PostgresConnection.text(PQerrorMessage(connection)), sqlState: "", sql: sql)
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message = PostgresConnection.text(PQresultErrorMessage(result))
            PQclear(result)
            throw DatabaseError(postgres: message.isEmpty ? PostgresConnection.text(PQerrorMessage(connection)) : message,
                                sqlState: state, sql: sql)
        }
        self.result = result
        count = Int(PQntuples(result))
    }

    deinit { PQclear(result) }

    /// The field's text, nil for NULL.
    func string(_ row: Int, _ column: Int) -> String? {
        guard PQgetisnull(result, Int32(row), Int32(column)) == 0 else { return nil }
        return String(cString: PQgetvalue(result, Int32(row), Int32(column)))
    }

    /// A float8 column: PostgreSQL 12 and later print the shortest text that reads back as the
    /// same double, so the value is the one written, bit for bit.
    func double(_ row: Int, _ column: Int) -> Double? { string(row, column).flatMap(Double.init) }

    func int64(_ row: Int, _ column: Int) -> Int64? { string(row, column).flatMap { Int64($0) } }
}

private extension String {
    /// libpq's messages run over several lines; a log line is one.
    func replacingNewlines() -> String {
        String(map { $0.isNewline ? " " : $0 })
    }
}
