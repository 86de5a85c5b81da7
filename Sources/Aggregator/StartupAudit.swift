#if canImport(Glibc)
import Glibc
#endif

/// What an operator should hear about when the aggregator starts: files holding secrets or
/// the site that every user of the machine can reach or its group can change, and HTTP
/// served beyond this host without a token. Warnings only: the service runs either way, as
/// the operator chose.
///
/// Group-readable is fine: the documented install (docs/operations.md#the-aggregator) gives these files to
/// root with the service's group, mode 0640, so the service reads them and cannot change them.
public enum StartupAudit {
    /// One line per problem, for the log.
    public static func warnings(_ settings: AggregatorSettings) -> [String] {
        var out: [String] = []
        var files: [(what: String, path: String)] = []
        if let site = settings.sitePath { files.append(("site file", site)) }
        if let file = settings.site.mqtt.passwordFile { files.append(("MQTT password file", file)) }
        if let key = settings.site.mqtt.tls?.key { files.append(("TLS key", key)) }
        if let token = settings.httpTokenFile { files.append(("HTTP token file", token)) }
        for (what, path) in files {
            guard let (mode, group) = permissions(path), let problem = exposure(mode, groupIsOurs: group == getegid()) else { continue }
            out.append("\(what) \(path) \(problem)")
        }
        if let address = settings.http, settings.httpToken == nil, !isLoopback(address) {
            out.append("HTTP on \(address) serves /metrics and /api to anyone who can reach it, without a token; "
                       + "set --http-token-file or bind 127.0.0.1")
        }
        return out
    }

    /// What is wrong with a secret's or the site's permission bits, nil when nothing is.
    /// `groupIsOurs`: the file's group is the service's (its effective group): group-readable
    /// is fine only then, as any other group's members could read the secret.
    static func exposure(_ mode: UInt32, groupIsOurs: Bool) -> String? {
        let fine = "0600, or 0640 with the service's group, is fine"
        let shown = String(mode, radix: 8)
        if mode & 0o007 != 0 { return "is open to every user (mode \(shown)); chmod o-rwx it (\(fine))" }
        if mode & 0o020 != 0 { return "is writable by its group (mode \(shown)); chmod g-w it (\(fine))" }
        if mode & 0o040 != 0 && !groupIsOurs {
            return "is readable by a group other than the service's (mode \(shown)); chgrp it to the service's group or chmod g-r it (\(fine))"
        }
        return nil
    }

    /// The permission bits and group of a file; nil when it cannot be read (the start fails
    /// on that).
    static func permissions(_ path: String) -> (mode: UInt32, group: gid_t)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt32(info.st_mode) & 0o777, info.st_gid)
    }

    /// Whether `ADDR:PORT` listens on the loopback interface only.
    static func isLoopback(_ address: String) -> Bool {
        let host = address.lastIndex(of: ":").map { String(address[..<$0]) } ?? address
        return host == "localhost" || host.hasPrefix("127.") || host == "[::1]" || host == "::1"
    }
}
