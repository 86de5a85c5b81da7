import Foundation
import MQTT
import Storage
import Testing

/// The simulated house (tools/sites/house.yaml): eight real edges replaying their captures in
/// real time into a real broker and aggregator. The same recording runs twice at once: once
/// straight through, once with the broker stopped for 60 s. The second run's history must be
/// the first's: no reading refused as late, the gap's track as dense, the same visits.
private let house = packageRoot.appendingPathComponent("tools/sites/house.yaml")

/// Keys on the hall table throughout; the dog's tag in the living room, then into the kitchen
/// (about 49 s), then into the hall (about 86 s): both room changes fall in the outage.
private func scenario(start: Int, duration: Int) -> String {
    """
    seed: 5
    duration: \(duration)s
    start: \(start)
    effects: { shadowing_sd: 1, rician_k: 10, body_loss: 1 }
    devices:
      - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
        tx_power: -59
        interval_ms: 200
        path:
          - { at: [5, 6.5], floor: ground, dwell: \(duration)s }
      - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-2-7"
        tx_power: -59
        interval_ms: 200
        speed: 1.0
        path:
          - { at: [2, 2.5], floor: ground, dwell: 45s }
          - { at: [6, 2.5] }
          - { at: [8, 2.5], dwell: 30s }
          - { at: [8, 5] }
          - { at: [5, 6.5], dwell: \(duration)s }
    """
}

private let devices = ["iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42", "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-2-7"]

/// The house's captures of `scenario`, one per node, in `dir/sim`.
private func simulateHouse(_ dir: URL, duration: Int) throws -> [URL] {
    let file = dir.appendingPathComponent("scenario.yaml")
    try scenario(start: Int(Date().timeIntervalSince1970), duration: duration).write(to: file, atomically: true, encoding: .utf8)
    let sim = dir.appendingPathComponent("sim")
    let p = Process()
    p.executableURL = executable("whereabouts")
    p.arguments = ["simulate", "--site", house.path, "--scenario", file.path, "--out", sim.path]
    try runUnmasked(p)
    p.waitUntilExit()
    #expect(p.terminationStatus == 0)
    return try FileManager.default.contentsOfDirectory(atPath: sim.path).filter { $0.hasSuffix(".btsnoop") }.sorted()
        .map { sim.appendingPathComponent($0) }
}

/// One edge per capture, replaying it in real time, stamped now, QoS 1, reconnecting quickly.
private func edges(_ captures: [URL], broker: Broker) throws -> [EdgeProcess] {
    try captures.map { capture in
        try EdgeProcess(["--node", String(capture.lastPathComponent.dropLast(8)), "--broker", broker.url, "--replay", capture.path,
                         "--speed", "1", "--retime", "--qos", "1", "--reconnect-max", "2s", "--flush-timeout", "30s"])
    }
}

/// `whereabouts visits --format json` of a database: (device, zone, enter, exit).
private func visits(_ db: URL) throws -> [(device: String, zone: String, enter: Double, exit: Double?)] {
    let p = Process()
    p.executableURL = executable("whereabouts")
    p.arguments = ["visits", "--db", db.path, "--format", "json"]
    let out = Pipe()
    p.standardOutput = out
    try runUnmasked(p)
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let rows = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    return rows.map { ($0["device"] as? String ?? "", $0["zone"] as? String ?? "", $0["enter"] as? Double ?? 0, $0["exit"] as? Double) }
        .sorted { ($0.device, $0.enter) < ($1.device, $1.enter) }
}

private func points(_ db: URL, device: String, from: Double, to: Double) throws -> [TrackPoint] {
    var out: [TrackPoint] = []
    try TrackReader(path: db.path).history(device: device, since: from, until: to) { out.append($0) }
    return out
}

@Test(.timeLimit(.minutes(4)))
func aSixtySecondBrokerOutageLeavesNoHoleInTheHouse() async throws {
    let began = Date()
    let dir = try faultDirectory("outage")
    defer { try? FileManager.default.removeItem(at: dir) }
    let captures = try simulateHouse(dir, duration: 130)
    #expect(captures.count == 8)
    let plainBroker = try Broker(), outageBroker = try Broker(persistent: true)
    defer { plainBroker.stop(); outageBroker.stop() }
    let plainDB = dir.appendingPathComponent("plain.db"), outageDB = dir.appendingPathComponent("outage.db")
    let plain = try AggregatorProcess(broker: plainBroker, db: plainDB, directory: dir, name: "plain", site: house)
    let outage = try AggregatorProcess(broker: outageBroker, db: outageDB, directory: dir, name: "outage", site: house)
    let up = (await plain.waitForMetrics { _ in true }, await outage.waitForMetrics { _ in true })
    #expect(up.0 != nil && up.1 != nil)

    let start = Date().timeIntervalSince1970
    // Each node's two edges started together: their readings are stamped as they replay.
    let replays = try captures.flatMap { try edges([$0], broker: plainBroker) + edges([$0], broker: outageBroker) }
    try await Task.sleep(for: .seconds(30))
    let stopped = Date().timeIntervalSince1970
    outageBroker.stop()
    try await Task.sleep(for: .seconds(60))
    try outageBroker.start()
    let restarted = Date().timeIntervalSince1970
    for edge in replays { #expect(await edge.exitStatus(timeout: 90) == 0, "\(edge.stderr)") }
    let m = try #require(await outage.waitForMetrics(timeout: 30) { $0["whereabouts_backfill_passes_total"] >= 1 }, "\(outage.log)")
    try await Task.sleep(for: .seconds(3))

    let after = try #require(await outage.metrics())
    #expect(after.rejected("late") == 0, "\(outage.log)")
    #expect(after["whereabouts_backfill_passes_total"] == 1)
    #expect(after["whereabouts_backfill_readings_total"] > 0)
    let plainMetrics = try #require(await plain.metrics())
    print("outage of \(Int(restarted - stopped)) s: \(Int(after["whereabouts_backfill_readings_total"])) readings backfilled, "
          + "\(Int(after.rejected("late"))) late, \(Int(after.total("whereabouts_readings_total"))) accepted "
          + "(no outage: \(Int(plainMetrics.total("whereabouts_readings_total"))))")
    _ = m

    // Every device's track through the outage as dense as without it.
    for device in devices {
        let usual = try points(plainDB, device: device, from: stopped + 2, to: restarted - 2)
        let filled = try points(outageDB, device: device, from: stopped + 2, to: restarted - 2)
        // A still device's held fixes make no point (its position has not moved): its few
        // points come and go with noise (4 to 10 in a minute in both runs, 15 to 30 s apart),
        // so its track is compared by count and room; a moving device's also by its longest gap.
        let gap = { (p: [TrackPoint]) in zip([stopped + 2] + p.map(\.t), p.map(\.t) + [restarted - 2]).map { $1 - $0 }.max() ?? 0 }
        let rooms = { (p: [TrackPoint]) in Set(p.compactMap(\.room)) }
        let travelled = zip(usual, usual.dropFirst()).map { hypot($1.x - $0.x, $1.y - $0.y) }.reduce(0, +)
        print("\(device): \(filled.count) points in the outage window (\(filled.filter(\.backfilled).count) backfilled), longest gap "
              + "\(Int(gap(filled))) s, rooms \(rooms(filled).sorted()); \(usual.count) without it, longest gap \(Int(gap(usual))) s, "
              + "rooms \(rooms(usual).sorted()), \(String(format: "%.1f", travelled)) m travelled")
        #expect(!usual.isEmpty && filled.count * 2 >= usual.count, "\(device): \(filled.count) vs \(usual.count)")
        #expect(rooms(filled) == rooms(usual), "\(device): rooms \(rooms(filled)) vs \(rooms(usual))")
        if rooms(usual).count > 1 {
            #expect(gap(filled) <= 1.5 * gap(usual) + 5, "\(device): a gap of \(gap(filled)) s vs \(gap(usual)) s")
        }
        #expect(filled.allSatisfy { $0.backfilled })
    }

    // The same visits: rooms in the same order, each enter and exit within a second.
    let expected = try visits(plainDB), got = try visits(outageDB)
    let describe = { (v: [(device: String, zone: String, enter: Double, exit: Double?)]) in
        v.map { "\($0.device.suffix(4)) \($0.zone) \(String(format: "%.1f", $0.enter - start))–\($0.exit.map { String(format: "%.1f", $0 - start) } ?? "open")" }
    }
    #expect(expected.map(\.zone) == got.map(\.zone) && expected.map(\.device) == got.map(\.device),
            "without outage \(describe(expected)); with \(describe(got))")
    #expect(expected.contains { $0.zone == "kitchen" }, "\(describe(expected))")
    print("visits without the outage: \(describe(expected).joined(separator: ", ")); with it: \(describe(got).joined(separator: ", "))")
    for (a, b) in zip(expected, got) {
        #expect(abs(a.enter - b.enter) <= 1, "\(a) vs \(b)")
        #expect((a.exit == nil) == (b.exit == nil) && abs((a.exit ?? 0) - (b.exit ?? 0)) <= 1, "\(a) vs \(b)")
    }
    let stops = (await plain.stop(), await outage.stop())
    #expect(stops.0 == 0 && stops.1 == 0, "\(outage.log)")
    print("outage test: \(Int(Date().timeIntervalSince(began))) s")
}

/// The aggregator killed (`kill -9`) while a backfill gathers the backlog of a 20 s outage,
/// then started again on the same database: nothing stored before the kill is lost, and no
/// visit is open twice (one open visit per device and zone, one open room per device).
@Test(.timeLimit(.minutes(3)))
func aKillDuringABackfillLosesNothingStoredAndOpensNoVisitTwice() async throws {
    let dir = try faultDirectory("outage-kill")
    defer { try? FileManager.default.removeItem(at: dir) }
    let captures = try simulateHouse(dir, duration: 60)
    let broker = try Broker(persistent: true)
    defer { broker.stop() }
    let db = dir.appendingPathComponent("tracks.db")
    let first = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "first", site: house)
    #expect(await first.waitForMetrics { _ in true } != nil)
    let replays = try edges(captures, broker: broker)
    try await Task.sleep(for: .seconds(15))
    broker.stop()
    try await Task.sleep(for: .seconds(20))
    try broker.start()
    let gathering = await first.waitForMetrics(timeout: 30) { $0["whereabouts_backfill_readings_total"] > 0 }
    #expect(gathering != nil, "\(first.log)")
    let stored = try storedCounts(db)
    first.kill9()
    let kept = try storedCounts(db)
    #expect(kept.points >= stored.points && kept.visits >= stored.visits, "before the kill \(stored), after \(kept)")

    let second = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "second", site: house)
    for edge in replays { #expect(await edge.exitStatus(timeout: 90) == 0, "\(edge.stderr)") }
    #expect(await second.waitForMetrics(timeout: 20) { $0.total("whereabouts_readings_total") > 0 } != nil, "\(second.log)")
    try await Task.sleep(for: .seconds(3))
    let end = try storedCounts(db)
    #expect(end.points >= kept.points && end.visits >= kept.visits)
    let all = try TrackReader(path: db.path).visits()
    let open = all.filter { $0.exit == nil }
    #expect(Set(open.map { "\($0.device) \($0.zone)" }).count == open.count, "\(open)")
    let rooms = Set(["living", "kitchen", "hall", "bedroom_1", "bedroom_2", "bathroom", "landing"])
    for device in devices { #expect(open.filter { $0.device == device && rooms.contains($0.zone) }.count <= 1, "\(open)") }
    #expect(all.allSatisfy { v in v.exit.map { $0 >= v.enter } ?? true }, "\(all)")
    #expect(try TrackReader(path: db.path).integrityCheck() == "ok")
    print("kill -9 while gathering a backfill: \(stored.points) points and \(stored.visits) visits stored before, "
          + "\(kept.points)/\(kept.visits) after the kill, \(end.points)/\(end.visits) at the end; \(open.count) open")
    #expect(await second.stop() == 0, "\(second.log)")
}

private func storedCounts(_ db: URL) throws -> (points: Int, visits: Int) {
    let reader = try TrackReader(path: db.path)
    var points = 0
    for device in devices { try reader.history(device: device) { _ in points += 1 } }
    return (points, try reader.visits().count)
}
