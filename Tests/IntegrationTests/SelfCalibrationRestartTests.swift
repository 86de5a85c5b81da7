import Foundation
import PostgresStorage
import Storage
import Testing

/// Self-calibration across a real restart: an aggregator learns from an anchored device (the
/// reference site with its tag at a known point), stops cleanly, and a second one on the same
/// store (an SQLite file, or PostgreSQL) starts from what the first learned — at `/api/calibration` and in /metrics —
/// before it hears a single reading.
@Test(.timeLimit(.minutes(3)))
func learnedCalibrationSurvivesAnAggregatorRestart() async throws {
    let dir = try faultDirectory("self-calibration")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    try await learnAndRestart(dir: dir, database: db.path, environment: [:], source: db.path) {
        try CalibrationStore(path: db.path).load()
    }
}

/// The same on PostgreSQL: the second aggregator (a restart, or a standby taking the shard over)
/// reads the shard's set from the shared store.
@Test(.timeLimit(.minutes(3)))
func learnedCalibrationSurvivesARestartOnPostgres() async throws {
    let dir = try faultDirectory("self-calibration-pg")
    defer { try? FileManager.default.removeItem(at: dir) }
    let pg = try PostgresCluster()
    try pg.createDatabase("tracks")
    let url = pg.url("tracks")
    let environment = ["PGPASSFILE": pg.passfile.path, "STATE_DIRECTORY": dir.path]
    try await learnAndRestart(dir: dir, database: url, environment: environment, source: "\(url) (shard 0/1)") {
        try PostgresCalibrationStore(url: pg.url("tracks", passfile: true), shard: "0/1").load()
    }
}

/// An aggregator on `database` learns until 40 lessons, stops cleanly; `stored` reads what it
/// saved; a second one on the same store must show the same state before it hears a reading.
private func learnAndRestart(dir: URL, database: String, environment: [String: String], source: String,
                             stored load: () throws -> [CalibrationRecord]) async throws {
    let site = dir.appendingPathComponent("site.yaml")
    let reference = try String(contentsOf: Reference.site, encoding: .utf8)
    try (reference + "\ndevices:\n  - { id: \"\(Reference.keys)\", name: Shelf, point: [1.2, 2.0, 1.0] }\n")
        .write(to: site, atomically: true, encoding: .utf8)
    let broker = try Broker()
    defer { broker.stop() }
    let traffic = try Traffic(broker: broker)

    // Enough lessons that every node has an offset; how fast they come depends on the machine's
    // load (80 in 30 s on a loaded CI run, where 100 were first asked for).
    let enough = 40.0
    let first = try AggregatorProcess(broker: broker, db: nil, directory: dir, name: "first", site: site,
                                      environment: environment, database: database)
    let learning = await first.waitForMetrics(timeout: 60) { $0["whereabouts_self_calibration_updates_total"] >= enough }
    #expect((learning?["whereabouts_self_calibration_updates_total"] ?? 0) >= enough, "\(first.log)")
    await traffic.stop()
    try await Task.sleep(for: .seconds(1))
    let before = try #require(await selfCalibration(first.httpPort), "\(first.log)")
    #expect(await first.stop() == 0, "\(first.log)")

    // What the stop saved: four node offsets, the floor's exponent, the counter.
    let stored = try load()
    #expect(stored.filter { $0.kind == .node }.map(\.name).sorted() == ["ne", "nw", "se", "sw"])
    #expect(stored.contains { $0.kind == .floor && $0.name == "main" })

    let second = try AggregatorProcess(broker: broker, db: nil, directory: dir, name: "second", site: site,
                                       environment: environment, database: database)
    defer { second.kill9() }
    var answered = await selfCalibration(second.httpPort)
    for _ in 0..<75 where answered == nil {   // until it serves
        try await Task.sleep(for: .milliseconds(200))
        answered = await selfCalibration(second.httpPort)
    }
    let after = try #require(answered, "\(second.log)")
    #expect(after.updates == before.updates && Double(after.updates) >= enough)
    #expect(after.nodes == before.nodes, "\(before.nodes) then \(after.nodes)")
    #expect(after.exponent == before.exponent)
    #expect(second.log.contains("self-calibration (learn): restored 4 node offset(s)") && second.log.contains("from \(source)"),
            "\(second.log)")
    let metrics = try #require(await second.metrics())
    #expect(metrics["whereabouts_self_calibration_updates_total"] == Double(before.updates))
    for (name, offset) in before.nodes {
        #expect(abs(metrics["whereabouts_self_calibration_offset_db{node=\"\(name)\"}"] - offset) < 0.01)
    }
    #expect(await second.stop() == 0, "\(second.log)")
}

/// `/api/calibration`'s `self_calibration`: updates, node offsets by name, the first floor's exponent.
private func selfCalibration(_ port: Int) async -> (updates: Int, nodes: [String: Double], exponent: Double?)? {
    guard let (status, body) = await httpGet("http://127.0.0.1:\(port)/api/calibration"), status == 200,
          let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
          let learned = root["self_calibration"] as? [String: Any], let updates = learned["updates"] as? Int,
          let nodes = learned["nodes"] as? [[String: Any]] else { return nil }
    var offsets: [String: Double] = [:]
    for n in nodes { if let name = n["name"] as? String, let offset = n["offset"] as? Double { offsets[name] = offset } }
    let floors = learned["floors"] as? [[String: Any]]
    return (updates, offsets, floors?.first?["exponent"] as? Double)
}
