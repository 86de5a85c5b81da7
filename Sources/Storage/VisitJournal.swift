#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Visit writes a clean stop could not store, kept beside the database in `<db>.pending`.
///
/// Their events were published already (an event waits for its commit only so long), so a
/// start that found these visits open would close them again, at another time, and publish a
/// second `exit`. The writer keeps them here when it closes with visit writes it could not
/// commit; `TrackWriter.resumeJournal()` queues them first at the next start and removes the
/// file once they are committed. The file is written whole or not at all (a temporary file,
/// fsync, rename, fsync of the directory), so a crash never leaves half of one.
///
/// Text, one visit a line after a version line: device, zone, floor, enter, exit, separated
/// by tabs; `\N` for a missing floor or exit (an open), `\\`, `\t`, `\n`, `\r` inside a field.
public struct VisitJournal: Sendable {
    public let path: String

    /// The journal of the database at `database`.
    public init(database: String) { path = database + ".pending" }

    /// A journal at `path` itself (a store that is no file, such as PostgreSQL, keeps one locally).
    public init(path: String) { self.path = path }

    static let header = "whereabouts-pending-visits 1"
    /// Larger than any journal the writer leaves with its default queue (55,000 visit writes,
    /// about 6 MB with ids of 60 bytes), smaller than memory. A larger file is set aside at
    /// start (`TrackWriter.resumeJournal`), never a reason not to start.
    static let maxBytes = 64 << 20

    /// `visits` in their order without repeats, a visit's open left out where its close is
    /// there too (a close stores the whole visit): one line per visit at most, so a journal
    /// carried over restarts grows only by visits, never by copies.
    static func merged(_ visits: [Visit]) -> [Visit] {
        let closed = Set(visits.lazy.filter { $0.exit != nil }.map(VisitName.init))
        var seen: Set<Visit> = []
        return visits.filter { ($0.exit != nil || !closed.contains(VisitName($0))) && seen.insert($0).inserted }
    }

    /// Renames the journal to `<db>.pending.<reason>-<unix time>`, out of the way of the next
    /// one and kept for an operator; returns the new path.
    func setAside(as reason: String) throws(JournalError) -> String {
        let aside = "\(path).\(reason)-\(time(nil))"
        guard rename(path, aside) == 0 else { throw failure("rename to \(aside)") }
        try syncDirectory()
        return aside
    }

    /// The visits kept, in the order they were queued: opens (`exit` nil) and closes. Empty
    /// when there is no file.
    public func visits() throws(JournalError) -> [Visit] {
        guard let bytes = try readFile() else { return [] }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first, String(decoding: first, as: UTF8.self) == Self.header else {
            throw JournalError(path: path, message: "not a visit journal (no '\(Self.header)' line)")
        }
        return try lines.dropFirst().enumerated().map { index, line throws(JournalError) in
            guard let visit = Self.visit(line) else {
                throw JournalError(path: path, message: "line \(index + 2): not a visit")
            }
            return visit
        }
    }

    /// Replaces the journal with `visits`, durably; nothing is left behind on failure.
    func replace(with visits: [Visit]) throws(JournalError) {
        var text = Self.header + "\n"
        for v in visits {
            let fields = [Self.escape(v.device), Self.escape(v.zone), v.floor.map(Self.escape) ?? "\\N",
                          "\(v.enter)", v.exit.map { "\($0)" } ?? "\\N"]
            text += fields.joined(separator: "\t") + "\n"
        }
        let temporary = path + ".tmp"
        do throws(JournalError) {
            try writeSynced(Array(text.utf8), to: temporary)
            guard rename(temporary, path) == 0 else { throw failure("rename") }
            try syncDirectory()
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Removes the journal (its visits are committed).
    func remove() throws(JournalError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("remove") }
        try syncDirectory()
    }

    // MARK: - Lines

    private static func visit(_ line: ArraySlice<UInt8>) -> Visit? {
        let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
        guard fields.count == 5, let device = unescape(fields[0]), let zone = unescape(fields[1]),
              let enter = number(fields[3]), enter.isFinite else { return nil }
        let floor = isNull(fields[2]) ? nil : unescape(fields[2])
        guard isNull(fields[2]) || floor != nil else { return nil }
        let exit = isNull(fields[4]) ? nil : number(fields[4])
        guard isNull(fields[4]) || exit?.isFinite == true else { return nil }
        return Visit(device: device, zone: zone, floor: floor, enter: enter, exit: exit)
    }

    private static func isNull(_ field: ArraySlice<UInt8>) -> Bool { field.elementsEqual("\\N".utf8) }

    private static func number(_ field: ArraySlice<UInt8>) -> Double? { Double(String(decoding: field, as: UTF8.self)) }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The field's text, or nil for an escape this format does not write.
    static func unescape(_ field: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        var escaped = false
        for b in field {
            if escaped {
                switch b {
                case UInt8(ascii: "\\"): out.append(b)
                case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
                default: return nil
                }
                escaped = false
            } else if b == UInt8(ascii: "\\") {
                escaped = true
            } else {
                out.append(b)
            }
        }
        return escaped ? nil : String(decoding: out, as: UTF8.self)
    }

    // MARK: - Files

    /// The whole file, nil when there is none.
    private func readFile() throws(JournalError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("open")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw failure("read") }
            if n == 0 { return bytes }
            bytes += buffer[..<n]
            guard bytes.count <= Self.maxBytes else {
                throw JournalError(path: path, message: "larger than \(Self.maxBytes) bytes", tooLarge: true)
            }
        }
    }

    private func writeSynced(_ bytes: [UInt8], to file: String) throws(JournalError) {
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw failure("create \(file)") }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw failure("write") }
            written += n
        }
        guard fsync(fd) == 0 else { throw failure("fsync") }
    }

    /// The rename (or unlink) is durable only once the directory is synced too.
    private func syncDirectory() throws(JournalError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open the directory") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure("fsync the directory") }
    }

    private func failure(_ step: String) -> JournalError {
        let code = errno
        return JournalError(path: path, message: "\(step): \(String(cString: strerror(code))) (errno \(code))")
    }
}

/// A visit's name in the store: (device, zone, enter time).
private struct VisitName: Hashable {
    let device: String, zone: String, enter: Double
    init(_ v: Visit) { (device, zone, enter) = (v.device, v.zone, v.enter) }
}

/// A visit journal that cannot be read or written.
public struct JournalError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let message: String
    /// Larger than `VisitJournal.maxBytes`: read no further.
    public var tooLarge = false
    public var description: String { "\(path): \(message)" }
}
