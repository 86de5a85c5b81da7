import Foundation
import Testing

// Audit, 2026-11-30: the operator's command line on bad input, as a real process. A command
// that never ends on its input is a crash the operator must notice and kill; each run here
// is killed after `deadline` and that counts as the failure.

private let deadline = 120.0

/// Runs `whereabouts` with `arguments`; nil when it had to be killed at the deadline.
private func whereabouts(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String)? {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out"), err = dir.appendingPathComponent("err")
    FileManager.default.createFile(atPath: out.path, contents: nil)
    FileManager.default.createFile(atPath: err.path, contents: nil)
    let p = Process()
    p.executableURL = executable("whereabouts")
    p.arguments = arguments
    p.standardOutput = try FileHandle(forWritingTo: out)
    p.standardError = try FileHandle(forWritingTo: err)
    let done = DispatchSemaphore(value: 0)
    p.terminationHandler = { _ in done.signal() }
    try runUnmasked(p)
    guard done.wait(timeout: .now() + deadline) == .success else {
        kill(p.processIdentifier, SIGKILL)
        _ = done.wait(timeout: .now() + 5)
        return nil
    }
    return (p.terminationStatus, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
}

/// A one-room site with three nodes of the given names (quoted: they may hold any byte).
private func site(_ names: [String] = ["a", "b", "c"]) -> String {
    """
    floors:
      - id: f
        bounds: [[0, 0, 0], [10, 10, 3]]
        rooms:
          - { id: r, points: [[0, 0], [10, 0], [10, 10], [0, 10]] }
    nodes:
      - { name: "\(names[0])", point: [0, 0, 1] }
      - { name: "\(names[1])", point: [10, 0, 1] }
      - { name: "\(names[2])", point: [0, 10, 1] }
    """
}

/// Three nodes hearing one device every 0.25 s for 10 s from `start`, one batch per node and step.
private func batches(from start: Double, seq: Int) -> String {
    var lines: [String] = []
    for i in 0..<40 {
        let t = start + Double(i) * 0.25
        for (k, (node, rssi)) in [("a", -60), ("b", -72), ("c", -74)].enumerated() {
            lines.append(#"{"v":1,"node":"\#(node)","seq":\#(seq + i * 3 + k),"t":\#(t),"readings":[{"id":"mac:aa:bb:cc:dd:ee:ff","rssi":\#(rssi),"t":\#(t),"kind":"mac"}]}"#)
        }
    }
    return lines.joined(separator: "\n") + "\n"
}

/// `locate` over readings with a leap in time between them: ten years on (a node's clock
/// reset, two recordings in one file), 1e300 s on (a clock gone wrong), and times past 2^53
/// quarter seconds, where one step of the update clock no longer moved it. The first stepped
/// through 1.3 billion updates, the others never ended.
@Test(.timeLimit(.minutes(5)), arguments: [(1_764_410_000.0, 1_764_410_000.0 + 3650 * 86_400), (1_764_410_000.0, 1e300), (1e17, 1e17 + 4096)])
func locateGetsThroughALeapInReadingTimes(first: Double, second: Double) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("audit-locate-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let sitePath = dir.appendingPathComponent("site.yaml"), input = dir.appendingPathComponent("readings.jsonl")
    try site().write(to: sitePath, atomically: true, encoding: .utf8)
    try (batches(from: first, seq: 1) + batches(from: second, seq: 1000)).write(to: input, atomically: true, encoding: .utf8)
    let run = try whereabouts(["locate", "--site", sitePath.path, "--input", input.path])
    let result = try #require(run, "whereabouts locate did not finish within \(deadline) s")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.contains("240 readings used"), "\(result.errors)")
    // Placed in both stretches where the engine places at all (at 1e17 every reading of a
    // stretch has the same time, and at 1e300 too: no track).
    let times = result.output.split(separator: "\n").compactMap { line -> Double? in
        guard line.hasPrefix(#"{"t":"#), let end = line.firstIndex(of: ",") else { return nil }
        return Double(line[line.index(line.startIndex, offsetBy: 5)..<end])
    }
    if first < 1e10 { #expect(times.contains { $0 >= first && $0 < first + 60 }, "\(result.output.prefix(2000))") }
    if second < 1e10 { #expect(times.contains { $0 >= second }, "\(result.output.suffix(2000))") }
}

/// `simulate` writes a capture per node named after it. A node `truth.jsonl\0` (a NUL ends the
/// path where open(2) reads it) wrote its capture over the truth file, and nodes `a/b` and
/// `a_b` (the `/` made `_`) wrote one file through two descriptors: exit 0, files corrupt
/// (153 of 200 truth lines left). Now the NUL is made `_` too and a clash is refused.
@Test(.timeLimit(.minutes(2)))
func simulateNeverWritesTwoFilesIntoOne() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("audit-simulate-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let scenario = dir.appendingPathComponent("scenario.yaml")
    try "seed: 1\nduration: 20s\ndevices:\n  - mac: \"c2:3a:6b:01:02:03\"\n    path: [ { at: [2, 2] } ]\n"
        .write(to: scenario, atomically: true, encoding: .utf8)

    let nul = dir.appendingPathComponent("nul.yaml"), out = dir.appendingPathComponent("out")
    try site([#"truth.jsonl\0"#, "a", "b"]).write(to: nul, atomically: true, encoding: .utf8)
    let run = try #require(try whereabouts(["simulate", "--site", nul.path, "--scenario", scenario.path, "--out", out.path]))
    #expect(run.status == 0, "\(run.errors)")
    let truth = String(decoding: try Data(contentsOf: out.appendingPathComponent("truth.jsonl")), as: UTF8.self)
    let lines = truth.split(separator: "\n")
    #expect(lines.count == 200 && lines.allSatisfy { $0.hasPrefix(#"{"t":"#) }, "\(lines.count) lines")
    let capture = try Data(contentsOf: out.appendingPathComponent("truth.jsonl_.btsnoop"))
    #expect(capture.prefix(8) == Data("btsnoop\0".utf8))

    let clash = dir.appendingPathComponent("clash.yaml")
    try site(["a/b", "a_b", "c"]).write(to: clash, atomically: true, encoding: .utf8)
    let refused = try #require(try whereabouts(["simulate", "--site", clash.path, "--scenario", scenario.path, "--out", out.path]))
    #expect(refused.status == 1)
    #expect(refused.errors.contains("nodes 'a/b' and 'a_b' would both write this capture"), "\(refused.errors)")
}

/// `whereabouts help [COMMAND]` prints help and exits 0; an unknown command is a usage error.
@Test func helpIsACommand() throws {
    let top = try #require(try whereabouts(["help"]))
    #expect(top.status == 0 && top.output.contains("commands:") && top.output.contains("check-site"), "\(top)")
    let decode = try #require(try whereabouts(["help", "decode"]))
    #expect(decode.status == 0 && decode.output.hasPrefix("whereabouts decode —"), "\(decode)")
    let unknown = try #require(try whereabouts(["help", "nope"]))
    #expect(unknown.status == 64 && unknown.errors.contains("unknown command 'nope'"), "\(unknown)")
}

/// A file that is no capture fails clearly (exit 1, the reason on standard error) instead of
/// printing one JSON error and exiting 0; /dev/zero is refused as no file, not read whole.
@Test(arguments: [("/etc/passwd", "is not a btsnoop capture"), ("/dev/zero", "is not a regular file")])
func decodeRefusesAFileThatIsNoCapture(path: String, says: String) throws {
    let run = try #require(try whereabouts(["decode", "--btsnoop", path]))
    #expect(run.status == 1, "\(run)")
    #expect(run.errors.contains("\(path) \(says)"), "\(run.errors)")
    #expect(run.output.isEmpty)
}

/// Review of edgecli: --btsnoop opened the path twice, so on a FIFO the header check ate the
/// header (stdout said "not a btsnoop file", stderr "damaged"); with no writer it hung in open.
@Test
func decodeRefusesAPipeForACapture() throws {
    let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("capture-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
    #expect(mkfifo(fifo, 0o600) == 0)
    defer { unlink(fifo) }
    let run = try #require(try whereabouts(["decode", "--btsnoop", fifo]))
    #expect(run.status == 1, "\(run)")
    #expect(run.errors.contains("\(fifo) is not a regular file"), "\(run.errors)")
    #expect(run.output.isEmpty)
}

/// A line that is neither a batch nor a {topic, payload} record is reported in the batch
/// decoder's words, not Foundation's ("Error Domain=NSCocoaErrorDomain Code=3840 …").
@Test(.timeLimit(.minutes(1)))
func locateReportsGarbageInItsOwnWords() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("audit-garbage-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let sitePath = dir.appendingPathComponent("site.yaml")
    try site().write(to: sitePath, atomically: true, encoding: .utf8)
    let locate = try EdgeProcess(["locate", "--site", sitePath.path, "--input", "-"], tool: "whereabouts")
    locate.write("garbage\n{\"topic\": 1}\n")
    locate.closeInput()
    #expect(await locate.exitStatus() == 0, "\(locate.stderr)")
    #expect(locate.stderr.contains("line 1: malformed") && locate.stderr.contains("line 2:"), "\(locate.stderr)")
    #expect(locate.stderr.contains("2 bad lines") && !locate.stderr.contains("NSCocoaErrorDomain"), "\(locate.stderr)")
}
