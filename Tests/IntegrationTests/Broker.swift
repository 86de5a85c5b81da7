import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real mosquitto broker on 127.0.0.1, on a free port, with its config in a temp dir.
///
/// `stop()` and `start()` again keep the port, so clients can reconnect to it; the broker is
/// killed when the object goes away.
final class Broker: @unchecked Sendable {
    let port: Int
    let directory: URL
    private var process: Process?

    /// - Parameter persistent: keep sessions and queued messages across `stop()`/`start()`,
    ///   so a subscriber with a persistent session misses nothing published while it was away.
    /// - Parameter settings: more lines for mosquitto.conf (`max_packet_size 3000`).
    init(persistent: Bool = false, settings: [String] = []) throws {
        port = try freePort()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("whereabouts-broker-\(getpid())-\(port)-\(UInt32.random(in: 0...UInt32.max))")
        // Started as root, mosquitto drops to its own user before it saves the persistence
        // database at shutdown: the directory must be writable by that user too.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o777])
        let config = """
            listener \(port) 127.0.0.1
            allow_anonymous true
            persistence \(persistent)
            persistence_location \(directory.path)/
            max_queued_messages 100000
            log_dest file \(directory.path)/mosquitto.log
            log_type error
            log_type warning
            log_type notice
            """ + settings.map { "\n" + $0 }.joined()
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    var configFile: URL { directory.appendingPathComponent("mosquitto.conf") }
    var url: String { "mqtt://127.0.0.1:\(port)" }
    var isRunning: Bool { process?.isRunning ?? false }

    /// Starts the broker (`init` already did; again after `stop()`) and returns once it
    /// accepts connections. Does nothing while it runs.
    func start() throws {
        guard !isRunning else { return }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        p.arguments = ["-c", configFile.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try runUnmasked(p)
        process = p
        let deadline = Date().addingTimeInterval(10)
        while !canConnect(port: port) {
            guard p.isRunning, Date() < deadline else {
                throw HarnessError("mosquitto did not start on port \(port): \(log)")
            }
            usleep(20_000)
        }
    }

    /// Stops the broker (SIGTERM) and waits until it has exited.
    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    var log: String { (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? "" }
}

/// Starts `process` with no signals blocked.
///
/// Test code runs on threads that block SIGTERM and SIGINT, and a spawned child inherits
/// the spawning thread's mask: a broker started that way ignores SIGTERM until it is killed.
/// Foundation spawns on the calling thread, so clearing this thread's mask around `run()`
/// gives the child a clean one.
func runUnmasked(_ process: Process) throws {
    var clear = sigset_t(), saved = sigset_t()
    sigemptyset(&clear)
    pthread_sigmask(SIG_SETMASK, &clear, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    try process.run()
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A port nobody listens on right now: bind to port 0 and ask which one the kernel chose.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard ok else { throw HarnessError("bind failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
