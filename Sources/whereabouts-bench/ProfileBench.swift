import Foundation

/// Instruction counts of the aggregator's hot path under a fixed input, by valgrind's
/// callgrind (repeatable where timings on these shared cores are not): `--only profile`
/// (`--out FILE` keeps the callgrind dump).
///
/// The real aggregator runs under callgrind with instrumentation off; every device is seen
/// once, then instrumentation covers exactly `readings` readings (20 nodes, 200 devices, at
/// 4,000 readings/s so valgrind keeps up: 10 readings per position solve, the mix of the
/// end-to-end ladder at 200,000 readings/s with 10,000 devices). Prints the total, the count
/// per reading and the functions that cost most. `--no-db` runs it with `--db none`, to tell
/// what storage costs (docs/storage.md).
///
/// `--devices N --nodes N --rates R` profile another mix instead. The ladder's top steps give
/// each device about 100 readings a second (1 M readings/s of 10,000 devices), ten times the
/// default's: `--devices 100 --rates 10000` is that mix, at a rate valgrind keeps up with.
/// A chosen mix is first run for `settleSeconds` uninstrumented, so that still devices are
/// held (`EngineOptions.holdSettle`) as they are in the ladder's steady state.
///
/// `WHEREABOUTS_PROFILE_VALGRIND` adds valgrind options (split at spaces): e.g.
/// `--cache-sim=yes` counts simulated cache misses, deterministic where timings are not
/// (`--LL=1048576,16,64` makes the last level this machine's L2, not its shared L3).
func runProfileBench(_ plan: BenchPlan) {
    let readings = plan.smoke ? 4_000 : 100_000
    let rate = plan.rates?.first ?? 4_000
    let chosen = plan.rates != nil || plan.devices != nil || plan.nodes != nil
    do {
        let out = NSTemporaryDirectory() + "whereabouts-callgrind-\(getpid()).out"
        let rig = try BenchRig(bin: plan.bin, nodes: plan.nodes ?? 20, devices: plan.devices ?? 200, subscriber: false,
                               wrapper: ["/usr/bin/valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=" + out] + extraValgrindOptions,
                               storage: plan.storage)
        defer { rig.stop() }
        rig.warmUp(rate: rate)
        if chosen {
            let settle = rig.metrics()
            let run = rig.offer(rate: rate, seconds: settleSeconds)
            _ = rig.drain(to: (settle?.readings ?? 0) + (settle?.rejected ?? 0) + Double(run.readings))
        }
        try callgrindControl(["-i", "on", "\(rig.aggregator.pid)"])
        let before = rig.metrics()
        let run = rig.offer(rate: rate, seconds: Double(readings) / rate)
        let after = rig.drain(to: (before?.readings ?? 0) + (before?.rejected ?? 0) + Double(run.readings), idle: 5, limit: 120)
        try callgrindControl(["-i", "off", "\(rig.aggregator.pid)"])
        try callgrindControl(["-d", "\(rig.aggregator.pid)"])
        let accepted = (after?.readings ?? 0) - (before?.readings ?? 0)
        let dumps = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("whereabouts-callgrind-\(getpid()).out") }.sorted()
        guard let dump = dumps.last.map({ NSTemporaryDirectory() + $0 }) else { throw BenchError("no callgrind dump") }
        defer { for d in dumps { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + d) } }
        // `--out FILE` keeps the dump for callgrind_annotate or kcachegrind.
        if let keep = plan.out { try? FileManager.default.removeItem(atPath: keep); try FileManager.default.copyItem(atPath: dump, toPath: keep) }
        let annotated = try annotate(dump)
        let total = annotated.total
        print("profile: \(plan.storage ? "with SQLite" : "without SQLite (--db none)"); \(decimal(accepted, 0)) readings accepted of \(run.readings) offered under callgrind; "
              + "\(total) instructions, \(decimal(Double(total) / max(accepted, 1), 0)) per reading; "
              + "\(decimal((after?.solved ?? 0) - (before?.solved ?? 0), 0)) solves, \(decimal((after?.held ?? 0) - (before?.held ?? 0), 0)) held; "
              + "\(decimal((after?.statesPublished ?? 0) - (before?.statesPublished ?? 0), 0)) states published, "
              + "\(decimal((after?.statesSuppressed ?? 0) - (before?.statesSuppressed ?? 0), 0)) suppressed by the deadband")
        for line in annotated.top.prefix(25) { print("profile: \(line)") }
    } catch {
        print("profile: failed: \(error)")
    }
}

private var extraValgrindOptions: [String] {
    (ProcessInfo.processInfo.environment["WHEREABOUTS_PROFILE_VALGRIND"] ?? "").split(separator: " ").map(String.init)
}

/// Longer than `EngineOptions.holdSettle` (4 s) with a margin.
private let settleSeconds = 8.0

private func callgrindControl(_ arguments: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/callgrind_control")
    p.arguments = arguments
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw BenchError("callgrind_control \(arguments.joined(separator: " ")) failed") }
}

/// Total instructions and the top functions (exclusive counts) of a callgrind dump.
private func annotate(_ dump: String) throws -> (total: Int, top: [String]) {
    let p = Process()
    let pipe = Pipe()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/callgrind_annotate")
    p.arguments = ["--threshold=99", dump]
    p.standardOutput = pipe
    try p.run()
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    var total = 0
    var top: [String] = []
    for line in text.split(separator: "\n") {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("PROGRAM TOTALS") {
            total = Int(trimmed.split(separator: " ")[0].replacingOccurrences(of: ",", with: "")) ?? 0
        } else if let first = trimmed.first, first.isNumber, trimmed.contains("(") && trimmed.contains(":") {
            top.append(demangled(String(trimmed)))
        }
    }
    return (total, top)
}

/// Swift symbols read better demangled; `swift demangle` is in the toolchain.
private func demangled(_ line: String) -> String {
    let p = Process()
    let input = Pipe(), output = Pipe()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["swift-demangle", "--simplified", "--compact"]
    p.standardInput = input
    p.standardOutput = output
    guard (try? p.run()) != nil else { return line }
    input.fileHandleForWriting.write(Data(line.utf8))
    try? input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    // Drop the binary's path, which says nothing the file name does not.
    let shown = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " [/").first.map(String.init) ?? line
    return shown.isEmpty ? line : String(shown.prefix(200))
}
