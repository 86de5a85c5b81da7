import Dispatch
import Foundation
import Synchronization

/// A process the benches start and measure: its CPU time and resident memory are read from
/// /proc while it runs, and it is stopped (SIGTERM, then SIGKILL) when asked or on deinit.
final class ChildProcess: @unchecked Sendable {
    let name: String
    let process = Process()

    init(_ executable: String, _ arguments: [String], name: String? = nil, stdout: Any? = nil, stderr: Any? = nil,
         environment: [String: String] = [:]) throws {
        self.name = name ?? (executable as NSString).lastPathComponent
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = stderr ?? FileHandle.nullDevice
        try process.run()
        _ = ChildProcess.running.withLock { $0.insert(process.processIdentifier) }
        ChildProcess.stopOnSignals
    }

    deinit { stop(grace: 0) }

    /// Children still running, killed if the bench itself is interrupted.
    private static let running = Mutex<Set<Int32>>([])

    /// SIGINT and SIGTERM kill every child first, so an interrupted bench leaves no broker
    /// or aggregator behind.
    private static let stopOnSignals: Void = {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                for pid in ChildProcess.running.withLock({ $0 }) { kill(pid, SIGKILL) }
                exit(130)
            }
            source.resume()
            signalSources.append(source)
        }
    }()
    /// Written once, inside `stopOnSignals`' one-time initialisation.
    nonisolated(unsafe) private static var signalSources: [DispatchSourceSignal] = []

    var pid: Int32 { process.processIdentifier }
    /// The process measured: this one, or the child of a wrapper (see `measureChild`).
    private(set) var measured: Int32 = 0

    /// Measures the wrapper's first child from now on (waits up to 5 s for it to exist).
    func measureChild() {
        let deadline = wallSeconds() + 5
        while wallSeconds() < deadline {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            if let child = text.split(separator: " ").first.flatMap({ Int32($0) }) {
                measured = child
                ChildProcess.running.withLock { _ = $0.insert(child) }
                return
            }
            usleep(20_000)
        }
    }
    var isRunning: Bool { process.isRunning }

    /// User plus system CPU seconds so far, from /proc/<pid>/stat (fields 14 and 15).
    var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(measured == 0 ? pid : measured)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident set size in bytes, from /proc/<pid>/statm.
    var residentBytes: Double? {
        guard let statm = try? String(contentsOfFile: "/proc/\(measured == 0 ? pid : measured)/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// SIGTERM, up to `grace` seconds to exit, then SIGKILL.
    func stop(grace: Double = 10) {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = wallSeconds() + grace
        while process.isRunning && wallSeconds() < deadline { usleep(20_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
        ChildProcess.running.withLock { _ = $0.remove(pid); _ = $0.remove(measured) }
    }
}

/// A private mosquitto on 127.0.0.1 and a free port, configured to queue rather than drop
/// at bench rates (its defaults queue 1,000 messages per client and 20 in flight).
final class PrivateBroker {
    let port: Int
    let directory: String
    private let child: ChildProcess

    init(directory: String) throws {
        port = try freePort()
        self.directory = directory
        let config = """
            listener \(port) 127.0.0.1
            allow_anonymous true
            persistence false
            max_queued_messages 1000000
            max_inflight_messages 1000
            max_packet_size 2000000
            log_dest file \(directory)/mosquitto.log
            log_type error
            log_type warning

            """
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        child = try ChildProcess("/usr/sbin/mosquitto", ["-c", directory + "/mosquitto.conf"], name: "mosquitto")
        guard waitForListener(port: port, timeout: 10) else { throw BenchError("mosquitto did not listen on \(port)") }
    }

    var url: String { "mqtt://127.0.0.1:\(port)" }
    var cpuSeconds: Double? { child.cpuSeconds }
    func stop() { child.stop(grace: 2) }
}

/// A plain `mosquitto_sub` on a topic filter, its output piped here and counted by lines.
/// It prints each message's payload length (`-F %l`), one short line a message, rather than
/// the payload: it receives every byte all the same, while the rig no longer pipes the whole
/// readings stream (about 160 MB/s at the ladder's top) through a pipe and a counting thread,
/// CPU the two-core machine's aggregator, broker and generator competed for.
final class SubscriberCount: @unchecked Sendable {
    private let child: ChildProcess
    private let pipe = Pipe()
    let lines = Atomic<Int>(0)

    init(port: Int, topic: String) throws {
        child = try ChildProcess("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-q", "0", "-F", "%l",
                                                            "-i", "bench-sub-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"],
                                 name: "mosquitto_sub", stdout: pipe)
        let fd = pipe.fileHandleForReading.fileDescriptor
        let thread = Thread { [self] in self.count(fd) }
        thread.name = "bench-sub-count"
        thread.start()
    }

    private func count(_ fd: Int32) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            guard n > 0 else { return }
            var found = 0
            for b in UnsafeRawBufferPointer(rebasing: buffer[..<n]) where b == 0x0A { found += 1 }
            lines.add(found, ordering: .relaxed)
        }
    }

    var cpuSeconds: Double? { child.cpuSeconds }
    func stop() { child.stop(grace: 1) }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A TCP port nobody listens on now (the kernel picks it).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket: \(errno)") }
    defer { close(fd) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw BenchError("bind: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// True once something accepts TCP connections on 127.0.0.1:`port`.
func waitForListener(port: Int, timeout: Double) -> Bool {
    let deadline = wallSeconds() + timeout
    while wallSeconds() < deadline {
        if let fd = connectLoopback(port: port) { close(fd); return true }
        usleep(50_000)
    }
    return false
}

private func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return address
}

private func connectLoopback(port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = loopback(port: port)
    let ok = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    if ok { return fd }
    close(fd)
    return nil
}

/// The body of `GET path` from 127.0.0.1:`port` (HTTP/1.0, so the server closes), or nil.
func httpGet(port: Int, path: String) -> String? {
    guard let fd = connectLoopback(port: port) else { return nil }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    guard request.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == request.count else { return nil }
    var response: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { break }
        response += chunk[..<n]
    }
    // A body cut short (a timeout under load) must not pass for a smaller count.
    guard let split = response.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
    let head = String(decoding: response[..<split.lowerBound], as: UTF8.self).lowercased()
    guard head.hasPrefix("http/1.") && head.split(separator: "\r\n").first?.contains(" 200 ") == true else { return nil }
    let body = response[split.upperBound...]
    if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
       let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)), length != body.count {
        return nil
    }
    return String(decoding: body, as: UTF8.self)
}
