public import Wire
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

    /// Parses the file at `path`.
    public static func parse(contentsOf path: String) throws(YAMLError) -> ConfigNode {
        try parse(bytes: readFile(path))
    }

    /// The bytes of a file; a failure is a `YAMLError` at line 0 naming the system's reason.
    public static func readFile(_ path: String) throws(YAMLError) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw YAMLError(line: 0, column: 0, message: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return bytes }
            if n < 0 {
                if errno == EINTR { continue }
                throw YAMLError(line: 0, column: 0, message: "cannot read: \(String(cString: strerror(errno)))")
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}
