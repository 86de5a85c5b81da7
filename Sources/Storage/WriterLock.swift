#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The right to write a track store: an exclusive `flock` on `<db>.lock`, held while this
/// object lives.
///
/// Two aggregators on one database would each take the other's open visits for a crash's,
/// close them and publish exits for devices still there. The kernel drops the lock when the
/// process dies in any way (`kill -9` too), so a stale lock never blocks a restart. `flock`,
/// not `fcntl`: SQLite's own locks on the database are `fcntl` locks, which a process loses
/// when it closes any descriptor of the file; a lock on a file of its own meets neither.
/// Readers (`TrackReader`, Grafana) take no lock. The file keeps the holder's pid for the
/// message of the one refused, and is never removed (removing it would let a second process
/// lock a new file while the first still holds the old one). It is made readable by all
/// (the pid is no secret): a run as another user locks it read-only, since `flock` needs no
/// write access, and then writes no pid. The lock is named after the database's real path,
/// so a database reached through a symbolic link has the one lock; the lock file itself is never
/// followed through a link, and only a plain file of our own is chmod-ed or written.
public final class WriterLock: Sendable {
    public let path: String
    private let descriptor: Int32

    /// Takes the lock of the database at `database`, or throws at once when another process
    /// (or another `WriterLock` in this one) holds it.
    public init(database: String) throws(WriterLockError) {
        path = Self.realPath(database) + ".lock"
        // Never through a symbolic link, and only a plain file of our own is chmod-ed or written:
        // whoever can write the database's directory must not get a root run to chmod or
        // truncate a file of their choosing (a `.lock` linked to /etc/shadow).
        var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        var writable = fd >= 0
        if !writable && (errno == EACCES || errno == EROFS) { fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard fd >= 0 else {
            let hint = errno == EACCES ? "; another user's run left it unreadable: with no aggregator running, remove it" : ""
            throw WriterLockError(path: path, holder: nil, reason: Self.reason("cannot open") + hint)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else {
            close(fd)
            throw WriterLockError(path: path, holder: nil, reason: "not a plain file with one link: with no aggregator running, remove it")
        }
        writable = writable && info.st_uid == geteuid()
        // Readable by all whatever the umask: a run as another user can then lock it read-only.
        if writable { _ = fchmod(fd, 0o644) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let message = Self.reason("cannot lock")
            let holder = busy ? Self.holder(fd) : nil
            close(fd)
            throw WriterLockError(path: path, holder: holder, reason: busy ? nil : message)
        }
        descriptor = fd
        // The holder's pid, for the message a second writer gets; the lock works without it.
        let pid = Array("\(getpid())\n".utf8)
        if writable && ftruncate(fd, 0) == 0 { _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
    }

    /// The database's path with symbolic links resolved: the file's when it exists, else its
    /// directory's (the database is created there), else `database` as given.
    static func realPath(_ database: String) -> String {
        if let real = resolved(database) { return real }
        let slash = database.lastIndex(of: "/")
        let directory = slash.map { $0 == database.startIndex ? "/" : String(database[..<$0]) } ?? "."
        let name = slash.map { String(database[database.index(after: $0)...]) } ?? database
        guard let real = resolved(directory) else { return database }
        return real == "/" ? "/" + name : real + "/" + name
    }

    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// The pid the holder wrote, when it is one and that process is alive.
    private static func holder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\n").first ?? ""
        // A holder that locked read-only wrote no pid: one that is gone is an earlier run's.
        return Int32(text).flatMap { $0 > 0 && (kill($0, 0) == 0 || errno == EPERM) ? $0 : nil }
    }

    private static func reason(_ step: String) -> String {
        let code = errno
        return "\(step): \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// Another process holds a database's writer lock, or the lock file cannot be used.
public struct WriterLockError: Error, Sendable, CustomStringConvertible {
    /// The lock file.
    public let path: String
    /// The pid of the process holding the lock, when it could be read.
    public let holder: Int32?
    /// Why the lock file could not be used; nil when another process holds the lock.
    public let reason: String?

    public var description: String {
        if let reason { return "\(path): \(reason)" }
        let who = holder.map { "another process (pid \($0))" } ?? "another process"
        return "\(who) is writing this database (it holds \(path)); stop it first"
    }
}
