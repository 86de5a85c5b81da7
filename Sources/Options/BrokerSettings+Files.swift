#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BrokerSettings {
    /// One line per named file (password, CA, certificate, key) that cannot be opened for
    /// reading, with its key, path and the system's reason; empty when all can. A missing CA
    /// file surfaced only at connect, as libmosquitto's "Invalid function arguments provided."
    /// with no path, and --check-config said OK.
    public func unreadableFiles() -> [String] {
        namedFiles.compactMap { key, path in
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd < 0 else { close(fd); return nil }
            return "\(key): cannot read \(path): \(String(cString: strerror(errno)))"
        }
    }
}
