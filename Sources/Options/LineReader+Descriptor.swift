#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LineReader {
    /// Lines read with `read(2)` from an open descriptor (0 for standard input); an
    /// interrupted read is retried, any other error ends the input with `failed` set.
    public static func descriptor(_ fd: Int32, limit: Int) -> LineReader {
        LineReader(limit: limit) { buffer in
            while true {
                let n = read(fd, buffer.baseAddress, buffer.count)
                if n >= 0 || errno != EINTR { return n }
            }
        }
    }
}
