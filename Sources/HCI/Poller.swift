#if canImport(Glibc)
import Glibc
#endif

/// `poll()` over a fixed set of descriptors, reusing its array so waiting allocates nothing.
struct Poller {
    private var fds: [pollfd]

    init(_ descriptors: [Int32]) {
        fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    }

    /// Waits up to `milliseconds` (-1: forever); false on timeout.
    mutating func wait(milliseconds: Int32) throws(HCIError) -> Bool {
        while true {
            let n = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), milliseconds) }
            if n >= 0 { return n > 0 }
            guard errno == EINTR else { throw .system("poll") }
        }
    }

    /// Descriptor `i` has input, or an error or hang-up its read will report.
    func ready(_ i: Int) -> Bool { fds[i].revents != 0 }
}

/// A pipe that wakes a poller from another thread: `stop()` writes, the reader's poll returns.
final class Wakeup: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(HCIError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system("pipe") }
        readEnd = ends[0]
        writeEnd = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }
}

/// Unix time in seconds, as readings carry it.
func unixNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
