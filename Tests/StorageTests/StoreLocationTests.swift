import Storage
import Testing

/// `--db` names a PostgreSQL store by its URL scheme, anything else is an SQLite file.
@Test(arguments: [
    ("postgresql://db:5432/w?user=u", true), ("postgres://db/w", true), ("PostgreSQL://db/w", true),
    ("tracks.db", false), ("/var/lib/whereabouts/whereabouts.db", false), ("postgresql.db", false),
    ("./postgresql://odd", false),
])
func storeLocationFollowsTheScheme(text: String, isPostgres: Bool) {
    let location = StoreLocation(text)
    #expect(location == (isPostgres ? .postgres(url: text) : .file(text)))
}

/// A PostgreSQL error reads as one, with its SQLSTATE, and is classified from it.
@Test func postgresErrorsAreClassifiedBySQLState() {
    #expect(DatabaseError(postgres: "disk full", sqlState: "53100").kind == .diskFull)
    #expect(DatabaseError(postgres: "read-only", sqlState: "25006").kind == .readOnly)
    #expect(DatabaseError(postgres: "deadlock", sqlState: "40P01").kind == .locked)
    let refused = DatabaseError(postgres: "connection refused", sqlState: "")
    #expect(refused.kind == .failing)
    #expect(refused.description == "connection refused (PostgreSQL)")
    #expect(DatabaseError(postgres: "x", sqlState: "42P01", sql: "SELECT 1").description == "x (PostgreSQL SQLSTATE 42P01) in: SELECT 1")
}
