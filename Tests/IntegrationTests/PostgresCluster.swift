import Foundation
import Storage
#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster for one test: `initdb` in a temporary directory, run by the
/// unprivileged user `whereabouts-test` (PostgreSQL refuses root), listening on a free port
/// on 127.0.0.1 and on a unix socket in that directory. TCP connections need the password
/// (scram-sha-256), which the test gives libpq through a password file, as an operator
/// would; the socket trusts local users (for the harness's own psql). Stopped and removed
/// when the object goes away.
///
/// Debian's `postgresql` is installed with apt-get when missing; anything that cannot be
/// set up throws `HarnessError` with the reason, so the test fails rather than skips.
final class PostgresCluster: @unchecked Sendable {
    static let user = "whereabouts-test"
    static let role = "whereabouts"
    let port: Int
    let directory: URL
    let bin: URL
    /// A password file (host:port:db:user:password, mode 0600) for `PGPASSFILE` or `passfile=`.
    let passfile: URL
    let password = "pw-\(UInt32.random(in: 0...UInt32.max))"

    init() throws {
        bin = try Self.binaries()
        try Self.ensureUser()
        port = try freePort()
        directory = URL(fileURLWithPath: "/tmp/whereabouts-pg-\(getpid())-\(port)-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let pwfile = directory.appendingPathComponent("pwfile")
        try password.write(to: pwfile, atomically: true, encoding: .utf8)
        passfile = directory.appendingPathComponent("pgpass")
        try "127.0.0.1:\(port):*:\(Self.role):\(password)\n".write(to: passfile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passfile.path)
        try run("/usr/bin/chown", ["-R", Self.user, directory.path])
        try runAsUser(bin.appendingPathComponent("initdb").path,
                      ["-D", dataDirectory, "-U", Self.role, "--pwfile", pwfile.path, "--auth-local=trust",
                       "--auth-host=scram-sha-256", "--no-locale", "-E", "UTF8", "--no-sync"])
        try start()
    }

    deinit {
        _ = try? runAsUser(bin.appendingPathComponent("pg_ctl").path, ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    var dataDirectory: String { directory.appendingPathComponent("data").path }
    var logFile: String { directory.appendingPathComponent("postgres.log").path }
    var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// A URL of database `name` over TCP: host, port, database and user, no password.
    func url(_ name: String, passfile inURL: Bool = false) -> String {
        "postgresql://127.0.0.1:\(port)/\(name)?user=\(Self.role)" + (inURL ? "&passfile=\(passfile.path)" : "")
    }

    /// Starts the server (again after `stop()`) and returns once it accepts connections.
    func start() throws {
        // fsync off: the tests kill the server, never the machine.
        let options = "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        try runAsUser(bin.appendingPathComponent("pg_ctl").path,
                      ["-D", dataDirectory, "-l", logFile, "-o", options, "-w", "-t", "30", "start"])
    }

    /// Stops the server: `immediate` is a crash (no checkpoint, sessions cut), `fast` a clean stop.
    func stop(mode: String = "immediate") throws {
        try runAsUser(bin.appendingPathComponent("pg_ctl").path, ["-D", dataDirectory, "-m", mode, "-w", "stop"])
    }

    /// Creates an empty database.
    func createDatabase(_ name: String) throws { _ = try psql("postgres", "CREATE DATABASE \"\(name)\"") }

    /// Runs SQL through psql on the unix socket; its unaligned, tuples-only output.
    @discardableResult
    func psql(_ database: String, _ sql: String) throws -> String {
        try run(bin.appendingPathComponent("psql").path,
                ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory.path, "-p", "\(port)", "-U", Self.role,
                 "-d", database, "-c", sql])
    }

    /// The newest installed server's bin directory; installs `postgresql` when there is none.
    private static func binaries() throws -> URL {
        func newest() -> URL? {
            let root = "/usr/lib/postgresql"
            let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
            return versions.last.map { URL(fileURLWithPath: "\(root)/\($0)/bin") }
                .flatMap { FileManager.default.fileExists(atPath: $0.appendingPathComponent("initdb").path) ? $0 : nil }
        }
        if let bin = newest() { return bin }
        _ = try? run("/usr/bin/apt-get", ["install", "-y", "--no-install-recommends", "postgresql"], timeout: 600)
        guard let bin = newest() else {
            throw HarnessError("PostgreSQL is not installed and `apt-get install postgresql` did not install it: "
                               + "run `make deps` (the Makefile lists postgresql)")
        }
        return bin
    }

    /// The unprivileged user the server runs as, added when missing.
    private static func ensureUser() throws {
        if getpwnam(user) != nil { return }
        _ = try? run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user])
        guard getpwnam(user) != nil else {
            throw HarnessError("no user \(user) and useradd could not add it (PostgreSQL will not run as root)")
        }
    }

    @discardableResult
    private func runAsUser(_ path: String, _ arguments: [String]) throws -> String {
        try Self.run("/usr/sbin/runuser", ["-u", Self.user, "--", path] + arguments)
    }

    @discardableResult
    private func run(_ path: String, _ arguments: [String]) throws -> String { try Self.run(path, arguments) }

    /// Runs a command to completion; its output, or `HarnessError` with its output on failure.
    ///
    /// Through posix_spawn and waitpid, not Foundation's Process: Process learns of an exit
    /// through a descriptor the child inherits, and `pg_ctl start` leaves the server holding
    /// it, so Process would wait for the server to stop.
    @discardableResult
    static func run(_ path: String, _ arguments: [String], timeout: Double = 120) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-run-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { try? FileManager.default.removeItem(at: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no signal blocked (the test threads block SIGTERM), as `runUnmasked`.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw HarnessError("cannot run \(path): \(String(cString: strerror(rc)))") }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                throw HarnessError("\(path) timed out after \(timeout) s")
            }
            usleep(10_000)
        }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0, code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw HarnessError("\(path) \(arguments.joined(separator: " ")): exit \(code) (status \(status))\n\(text)")
        }
        return text
    }
}

/// The published zone events (`enter`/`exit` payloads) that `visits` (as read from the store)
/// does not hold at their time: to 0.6 ms, since a payload's `t` has three decimals.
func eventsNotStored(_ events: [[String: Any]], in visits: [Visit]) -> [[String: Any]] {
    events.filter { e in
        let t = e["t"] as? Double ?? -1
        return !visits.contains { v in
            guard v.device == e["device"] as? String && v.zone == e["zone"] as? String else { return false }
            switch e["type"] as? String {
            case "enter": return abs(v.enter - t) < 0.0006
            case "exit": return v.exit.map { abs($0 - t) < 0.0006 } ?? false
            default: return false
            }
        }
    }
}
