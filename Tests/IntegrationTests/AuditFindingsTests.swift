import Foundation
import Testing

// Audit, 2026-11-30: findings in files this audit does not own, each a failing test kept
// disabled until the owner fixes it (the report lists the suggested fix).

/// `whereabouts-aggregator --config FILE` takes every option as a key, but `dialect` and
/// `no-discovery` are read from the command line only: in the file they are accepted and
/// ignored without a word. `--dialect nonsense` exits 64; `dialect: nonsense` in the file
/// started the aggregator (here, with no broker, it ran until killed).
@Test(.disabled("audit: --config's dialect and no-discovery keys are silently ignored (main.swift reads args.strings(\"dialect\") and args.flag(\"no-discovery\"), not the merged options)"),
      .timeLimit(.minutes(2)))
func aggregatorConfigFileDialectIsRead() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("audit-agg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let config = dir.appendingPathComponent("aggregator.yaml")
    try "dialect: nonsense\n".write(to: config, atomically: true, encoding: .utf8)
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
    #expect(exited && p.terminationStatus == 64, "the aggregator started on a config naming an unknown dialect")
}
