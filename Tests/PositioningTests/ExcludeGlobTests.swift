import Foundation
import Testing
@testable import Positioning
import Wire

// Found by the audit of 2026-11-30 (docs/reliability.md): `exclude_devices` globs from a site
// file and ids from payloads must not be able to stop the engine. Each case runs in a child
// process, so a crash or a CPU limit shows as a failed exit, not as a dead test runner.

/// The engine matches each new device id against the site's `exclude_devices` globs. Its
/// matcher was recursive: one stack frame per `*` and per character, and every way of
/// splitting the id between the stars tried (now `Wire.Glob`, iterative). A site whose glob is a long run of
/// stars crashed the aggregator on the first reading (stack overflow, SIGSEGV).
@Test
func aLongGlobOfStarsDoesNotCrashTheEngine() async {
    await #expect(processExitsWith: .success) {
        var site = twoRoomSite()
        site.excludeDevices = [String(repeating: "*", count: 200_000) + "x"]
        let engine = Engine(site: site)
        _ = engine.ingest(node: site.nodes[0].name, reading: Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -60, t: 1000, kind: .mac))
    }
}

/// That backtracking was exponential in the stars: with `*-*-*-*-*-*-*-*x` excluded (a glob
/// an operator may write), one id of 190 dashes from an MQTT payload cost C(190, 8) ≈ 1e13
/// steps — the aggregator's work queue stopped. Run in a child capped at 60 s of CPU (an
/// iterative matcher takes microseconds); SIGXCPU is the failure.
@Test
func aGlobWithManyStarsMatchesInBoundedTime() async {
    await #expect(processExitsWith: .success) {
        var limit = rlimit(rlim_cur: 60, rlim_max: 60)
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
        var site = twoRoomSite()
        site.excludeDevices = ["*-*-*-*-*-*-*-*x"]
        let engine = Engine(site: site)
        let id = String(repeating: "-", count: 190)
        _ = engine.ingest(node: site.nodes[0].name, reading: Reading(id: id, rssi: -60, t: 1000, kind: .mac))
    }
}
