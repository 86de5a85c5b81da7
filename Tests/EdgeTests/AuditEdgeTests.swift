import BLE
@testable import Edge
import Foundation
import Testing
import YAML

// Audit, 2026-11-30: the edge on bad input.

/// `--replay` naming no capture but an endless file (`/dev/zero`, a pipe that never closes)
/// read it whole, until the process died of memory; the header would have said at once that
/// it is no btsnoop capture. Run in a child with its address space capped 256 MiB above what
/// it uses at the start.
@Test func replayOfAnEndlessFileIsRefusedAtItsHeader() async {
    await #expect(processExitsWith: .success) {
        var limit = rlimit()
        let statm = (try? YAML.readHead("/proc/self/statm", count: 64)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let pages = Int(statm.split(separator: " ").first ?? "") ?? 0
        limit.rlim_cur = rlim_t(pages * Int(sysconf(Int32(_SC_PAGESIZE))) + 256 << 20)
        limit.rlim_max = limit.rlim_cur
        setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit)
        do {
            _ = try ReplaySource(path: "/dev/zero", speed: 0, retime: false)
            exit(2)
        } catch {
            exit("\(error)".contains("not a usable btsnoop capture") ? 0 : 3)
        }
    }
}

/// The header check refuses what is not a capture and keeps what is.
@Test func replayChecksTheHeaderFirst() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("audit-edge-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let short = dir.appendingPathComponent("short"), text = dir.appendingPathComponent("text"), good = dir.appendingPathComponent("good")
    try Data("btsnoop".utf8).write(to: short)
    try Data(String(repeating: "not a capture\n", count: 100).utf8).write(to: text)
    try Data(BtsnoopWriter().bytes).write(to: good)
    #expect(throws: SourceError.self) { try ReplaySource(path: short.path, speed: 0, retime: false) }
    #expect(throws: SourceError.self) { try ReplaySource(path: text.path, speed: 0, retime: false) }
    #expect(throws: SourceError.self) { try ReplaySource(path: dir.appendingPathComponent("missing").path, speed: 0, retime: false) }
    _ = try ReplaySource(path: good.path, speed: 0, retime: false)
}
