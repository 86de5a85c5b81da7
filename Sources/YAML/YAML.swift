public import Wire
public import SiteModel
#if canImport(Glibc)
import Glibc
#endif

/// Reads YAML through libyaml into `ConfigNode` trees. The only importer of CYAML.
public enum YAML {
    /// Parses the first document of `text`.
    public static func parse(_ text: String) throws(YAMLError) -> ConfigNode {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses the first document of UTF-8 (or UTF-16 with a byte order mark) `bytes`.
    public static func parse(bytes: [UInt8]) throws(YAMLError) -> ConfigNode {
        let parser = try EventParser(bytes)
        return try TreeBuilder.build(parser)
    }

    /// The largest site, config or scenario file read: real ones are a few kilobytes, and a
    /// path naming an endless file (`/dev/zero`, a pipe that never closes) was read until the
    /// process ran out of memory.
    public static let maxFileBytes = 16 << 20

    /// Parses the file at `path`; a file over `maxFileBytes` is refused.
    public static func parse(contentsOf path: String) throws(YAMLError) -> ConfigNode {
        try parse(bytes: readFile(path, limit: maxFileBytes))
    }

    /// The first `count` bytes of a file (fewer when it is shorter), to check what a file is
    /// before reading all of it.
    public static func readHead(_ path: String, count: Int) throws(YAMLError) -> [UInt8] {
        try readBytes(path, upTo: count, refusingMore: false)
    }

    /// The bytes of a file, at most `limit` of them (more is an error); a failure is a
    /// `YAMLError` at line 0 naming the system's reason.
    public static func readFile(_ path: String, limit: Int = .max) throws(YAMLError) -> [UInt8] {
        try readBytes(path, upTo: limit, refusingMore: true)
    }

    /// Up to `limit` bytes of a file; with `refusingMore`, a file longer than that is an error.
    private static func readBytes(_ path: String, upTo limit: Int, refusingMore: Bool) throws(YAMLError) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw YAMLError(line: 0, column: 0, message: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let want = refusingMore ? chunk.count : min(chunk.count, limit - bytes.count)
            if want == 0 { return bytes }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
            if n == 0 { return bytes }
            if n < 0 {
                if errno == EINTR { continue }
                throw YAMLError(line: 0, column: 0, message: "cannot read: \(String(cString: strerror(errno)))")
            }
            guard n <= limit - bytes.count else {
                throw YAMLError(line: 0, column: 0, message: "larger than \(limit) bytes: not a file this reads")
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}
