import Storage

/// Checks on the `postgresql://` URL given as `--db`.
enum PostgresURL {
    /// Refuses a URL that carries a password (`user:secret@` or `password=`): command lines are
    /// visible to every user in `ps`, and end up in shell history and unit files.
    static func check(_ url: String) throws(DatabaseError) {
        let afterScheme = url.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        let authority = afterScheme.count == 3 ? afterScheme[2].prefix { $0 != "/" && $0 != "?" } : ""
        let userInfo = authority.contains("@") ? authority.prefix { $0 != "@" } : ""
        let query = url.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        let keys = query.split(separator: "&").map { $0.prefix { $0 != "=" }.lowercased() }
        guard !userInfo.contains(":"), !keys.contains("password") else {
            throw DatabaseError(postgres: "\(redacted(url)): the URL carries a password; put it in the file PGPASSFILE "
                                + "names (or ~/.pgpass) instead", sqlState: "")
        }
    }

    /// The URL with the connection settings the store relies on added, unless it sets them:
    /// a connect timeout (a server that does not answer must not hold the writer for ever)
    /// and UTF-8 text.
    static func withDefaults(_ url: String) -> String {
        var extra: [String] = []
        let lower = url.lowercased()
        if !lower.contains("connect_timeout=") { extra.append("connect_timeout=5") }
        if !lower.contains("client_encoding=") { extra.append("client_encoding=UTF8") }
        if !lower.contains("application_name=") { extra.append("application_name=whereabouts") }
        guard !extra.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + extra.joined(separator: "&")
    }

    /// The URL cut before its user information, for an error about a password in it.
    static func redacted(_ url: String) -> String {
        guard let at = url.firstIndex(of: "@"), let scheme = url.firstRange(of: "://") else { return url }
        return String(url[..<scheme.upperBound]) + "…" + String(url[at...])
    }
}
