import Foundation
@testable import Storage

/// A fresh directory under the system temporary directory, removed when the test ends.
final class TempDirectory {
    let path: String

    init(_ label: String = "store") {
        path = NSTemporaryDirectory() + "whereabouts-\(label)-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// Log lines a writer reported, collected for assertions.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var sink: @Sendable (String) -> Void { { [self] line in lock.withLock { lines.append(line) } } }
    var all: [String] { lock.withLock { lines } }
    func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}

/// Rows in `table`, read through a fresh read-only connection (what another process sees).
func count(_ table: String, in path: String, where condition: String = "1") throws -> Int64 {
    let db = try Connection(path: path, mode: .readOnly)
    return try db.integer("SELECT count(*) FROM \(table) WHERE \(condition)") ?? -1
}

/// A writer configuration that keeps every point (no thinning) and commits quickly.
func eagerConfiguration() -> WriterConfiguration {
    var configuration = WriterConfiguration()
    configuration.trackInterval = 0
    configuration.stillInterval = 0
    configuration.commitInterval = 0.05
    configuration.retryInterval = 0.05
    configuration.busyTimeout = 0.05
    configuration.maintenanceInterval = 3_600
    return configuration
}

func point(_ device: String, _ t: Double, x: Double = 0, y: Double = 0, room: String? = "kitchen") -> TrackPoint {
    TrackPoint(device: device, t: t, x: x, y: y, z: 1, floor: "ground", room: room, confidence: 0.8)
}

/// Runs a program and returns its exit status and standard output / error.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}
