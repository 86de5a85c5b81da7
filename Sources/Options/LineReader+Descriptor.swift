#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LineReader {
    /// Lines read with `read(2)` from an open descriptor (0 for standard input); an
    /// interrupted read is retried, any other error ends the input with `failure` set to its
    /// errno, taken at once.
    public static func descriptor(_ fd: Int32, limit: Int) -> LineReader {
        LineReader(limit: limit) { buffer in
            while true {
                let n = read(fd, buffer.baseAddress, buffer.count)
                if n >= 0 { return n }
                let number = errno
                if number != EINTR { return -Int(number) }
            }
        }
    }

    /// The system's words for the failed read ("Is a directory"), nil if none failed.
    public var failureReason: String? {
        failure.map { String(cString: strerror($0)) }
    }
}
