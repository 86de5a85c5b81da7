public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real mosquitto broker on 127.0.0.1, on a free port, with its config in a temp dir.
///
/// `stop()` and `start()` again keep the port, so clients can reconnect to it; the broker is
/// killed when the object goes away.
public final class Broker: @unchecked Sendable {
    public let port: Int
    public let directory: URL
    private var process: Process?

    /// - Parameter persistent: keep sessions and queued messages across `stop()`/`start()`,
    ///   so a subscriber with a persistent session misses nothing published while it was away.
    /// - Parameter settings: more lines for mosquitto.conf (`max_packet_size 3000`).
    public init(persistent: Bool = false, settings: [String] = []) throws {
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

    public var configFile: URL { directory.appendingPathComponent("mosquitto.conf") }
    public var url: String { "mqtt://127.0.0.1:\(port)" }
    public var isRunning: Bool { process?.isRunning ?? false }

    /// Starts the broker (`init` already did; again after `stop()`) and returns once it
    /// accepts connections. Does nothing while it runs.
    public func start() throws {
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
    public func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    public var log: String { (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? "" }
}
