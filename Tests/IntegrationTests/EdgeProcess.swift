import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the built executables are: `$WHEREABOUTS_BIN` (the Makefile sets it), else
/// `.build/debug` in the package that holds this file.
func executable(_ name: String) -> URL {
    if let bin = ProcessInfo.processInfo.environment["WHEREABOUTS_BIN"], !bin.isEmpty {
        return URL(fileURLWithPath: bin).appendingPathComponent(name)
    }
    return packageRoot.appendingPathComponent(".build/debug").appendingPathComponent(name)
}

/// The package root: two levels above `Tests/IntegrationTests/`.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

let fixtures = packageRoot.appendingPathComponent("Tests/BLETests/Fixtures")

/// A running `whereabouts-edge` (or another of the tools) with its output captured in files.
final class EdgeProcess: @unchecked Sendable {
    let process = Process()
    private let output: URL
    private let errors: URL
    private let input = Pipe()

    init(_ arguments: [String], tool: String = "whereabouts-edge") throws {
        let tag = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        output = FileManager.default.temporaryDirectory.appendingPathComponent("edge-out-\(tag)")
        errors = FileManager.default.temporaryDirectory.appendingPathComponent("edge-err-\(tag)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = executable(tool)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try runUnmasked(process)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        try? FileManager.default.removeItem(at: output)
        try? FileManager.default.removeItem(at: errors)
    }

    /// Writes to the edge's standard input.
    func write(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }
    func write(_ bytes: Data) { input.fileHandleForWriting.write(bytes) }
    func closeInput() { try? input.fileHandleForWriting.close() }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit and returns its status, or nil after `timeout` seconds.
    func exitStatus(timeout: Double = 30) async -> Int32? {
        guard await poll(timeout: timeout, { !self.process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    var stdout: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }
}
