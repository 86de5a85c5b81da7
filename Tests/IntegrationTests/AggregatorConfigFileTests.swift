import Foundation
import Testing

/// `whereabouts-aggregator --config FILE` takes every option as a key. Until the audit of
/// 2026-11-30, `dialect` and `no-discovery` were read from the command line only: in the file
/// they were accepted and ignored without a word (`--dialect nonsense` exits 64, `dialect:
/// nonsense` in the file started the aggregator). Each file here must be refused with 64.
@Test(.timeLimit(.minutes(2)), arguments: ["dialect: nonsense\n", "dialect: [espresense, nonsense]\n", "no-discovery: maybe\n"])
func aggregatorConfigFileKeysAreRead(config text: String) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("audit-agg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let config = dir.appendingPathComponent("aggregator.yaml")
    try text.write(to: config, atomically: true, encoding: .utf8)
    let site = packageRoot.appendingPathComponent("tools/sites/reference.yaml").path
    let p = Process()
    p.executableURL = executable("whereabouts-aggregator")
    p.arguments = ["--site", site, "--config", config.path, "--db", "none", "--http", "none", "--broker", "mqtt://127.0.0.1:9"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    let done = DispatchSemaphore(value: 0)
    p.terminationHandler = { _ in done.signal() }
    try runUnmasked(p)
    let exited = done.wait(timeout: .now() + 20) == .success
    if !exited {
        kill(p.processIdentifier, SIGKILL)
        _ = done.wait(timeout: .now() + 5)
    }
    #expect(exited && p.terminationStatus == 64, "the aggregator started on a config it should refuse: \(text)")
}
