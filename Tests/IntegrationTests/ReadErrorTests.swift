import Foundation
import Testing

// Review of edgecli: after a failed read the reader passed the partial line on as complete,
// and the edge printed "errno 21" (errno read long after the failing call) where the system's
// words belong.

/// Runs `tool` with a directory as standard input (it opens, every read fails with EISDIR);
/// its exit status and standard error.
private func runOnADirectory(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = executable(tool)
    p.arguments = arguments
    p.standardInput = try #require(FileHandle(forReadingAtPath: "/tmp"))
    let errors = Pipe()
    p.standardOutput = FileHandle.nullDevice
    p.standardError = errors
    try runUnmasked(p)
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return (p.terminationStatus, text)
}

@Test(.timeLimit(.minutes(1)))
func theEdgeNamesAFailedReadInTheSystemsWords() throws {
    let (status, errors) = try runOnADirectory("whereabouts-edge", ["--node", "n", "--stdin", "--broker", "mqtt://127.0.0.1:1"])
    #expect(status == 1, "\(errors)")
    #expect(errors.contains("reading standard input failed: Is a directory"), "\(errors)")
}

@Test(.timeLimit(.minutes(1)))
func locateNamesAFailedReadInTheSystemsWords() throws {
    let site = packageRoot.appendingPathComponent("tools/calibration/site.yaml").path
    let (status, errors) = try runOnADirectory("whereabouts", ["locate", "--site", site, "--input", "/tmp"])
    #expect(status == 1, "\(errors)")
    #expect(errors.contains("reading /tmp failed after line 0: Is a directory"), "\(errors)")
}
