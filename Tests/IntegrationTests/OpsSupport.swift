import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Helpers of the operations tests (Ops*.swift): running Debian's tools, long-running daemons,
// plain HTTP, and installing a missing tool with apt in the test's own setup.

/// What a finished command printed and how it ended.
struct CommandResult: CustomStringConvertible {
    var status: Int32
    var output: String
    var errors: String
    var description: String { "exit \(status)\n\(output)\(errors)" }
}

/// Runs `path` to completion with its output captured in files (no pipe to fill up), killing
/// it after `timeout` seconds.
@discardableResult
func runCommand(_ path: String, _ arguments: [String], in directory: URL? = nil,
                timeout: Double = 120) throws -> CommandResult {
    let tag = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("ops-out-\(tag)")
    let err = FileManager.default.temporaryDirectory.appendingPathComponent("ops-err-\(tag)")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: out); try? FileManager.default.removeItem(at: err) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    if let directory { p.currentDirectoryURL = directory }
    p.standardInput = FileHandle.nullDevice
    p.standardOutput = try FileHandle(forWritingTo: out)
    p.standardError = try FileHandle(forWritingTo: err)
    try p.run()
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning && Date() < deadline { usleep(10_000) }
    if p.isRunning { kill(p.processIdentifier, SIGKILL) }
    p.waitUntilExit()
    return CommandResult(status: p.terminationStatus,
                         output: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                         errors: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
}

/// A long-running program (mosquitto, Prometheus, the aggregator) with its output in a log
/// file; killed when the object goes away.
final class Daemon: @unchecked Sendable {
    let process = Process()
    let logFile: URL

    init(_ executable: URL, _ arguments: [String], log: URL) throws {
        logFile = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        try runUnmasked(process)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// SIGTERM, then the exit status once it has exited (nil after `timeout` seconds).
    func stop(timeout: Double = 15) async -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        guard await poll(timeout: timeout, { !self.process.isRunning }) else { return nil }
        return process.terminationStatus
    }
}

/// Installs Debian's `package` with apt when `binary` is missing (the tests' own setup, as
/// `make deps` does for the build). False when it is still missing: no network, no root.
func ensureDebianTool(_ binary: String, package: String) -> Bool {
    if FileManager.default.isExecutableFile(atPath: binary) { return true }
    for arguments in [["update", "-qq"], ["install", "-y", "-qq", "--no-install-recommends", package]] {
        setenv("DEBIAN_FRONTEND", "noninteractive", 1)
        guard let result = try? runCommand("/usr/bin/apt-get", arguments, timeout: 300), result.status == 0 else { break }
    }
    return FileManager.default.isExecutableFile(atPath: binary)
}

/// Prometheus from Debian (about 20 MB), installed once per test run when missing.
let prometheusInstalled: Bool = ensureDebianTool("/usr/bin/prometheus", package: "prometheus")

/// A temporary directory for one test, removed by the caller.
func opsDirectory(_ name: String) throws -> URL {
    let dir = FileManager.default.temporaryDirectory
        .appendingPathComponent("ops-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// A repository file as text.
func repositoryText(_ path: String) throws -> String {
    try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
}

/// `text` with each `(old, new)` replaced, failing when an `old` is not there: a test that
/// adapts a shipped file must notice when the file changes under it.
func adapted(_ text: String, _ replacements: [(String, String)], file: String) throws -> String {
    var out = text
    for (old, new) in replacements {
        guard out.contains(old) else { throw HarnessError("\(file) no longer contains '\(old)'") }
        out = out.replacingOccurrences(of: old, with: new)
    }
    return out
}
