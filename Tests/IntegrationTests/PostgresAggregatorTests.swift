import Foundation
import PostgresStorage
import Storage
import Testing

/// The aggregator with `--db postgresql://…` against a real broker: the password from
/// `PGPASSFILE`, PostgreSQL crashed and restarted while the device moves (positions and
/// events go on; the queued writes land once it is back), then the aggregator killed and
/// started again (it finds the open visit in PostgreSQL and carries it over). Every event published
/// is in the database at its time, with exactly one exit per enter.
@Suite(.timeLimit(.minutes(4)))
struct PostgresAggregatorTests {
    @Test func theAggregatorOnPostgresLosesNothingAcrossAServerRestart() async throws {
        let dir = try faultDirectory("pg-aggregator")
        defer { try? FileManager.default.removeItem(at: dir) }
        let pg = try PostgresCluster()
        try pg.createDatabase("tracks")
        let url = pg.url("tracks")
        let environment = ["PGPASSFILE": pg.passfile.path, "STATE_DIRECTORY": dir.path]
        let broker = try Broker()
        defer { broker.stop() }
        let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events", "whereabouts/devices/+/room"])
        try await collector.ready()
        let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
        let count = { (type: String, zone: String) in events().filter { $0["type"] as? String == type && $0["zone"] as? String == zone }.count }
        let traffic = try Traffic(broker: broker)

        let first = try AggregatorProcess(broker: broker, db: nil, directory: dir, name: "first", environment: environment, database: url)
        #expect(await collector.wait(timeout: 20) { _ in count("enter", "west") >= 1 }, "\(first.log)")
        try await Task.sleep(for: .seconds(1.5))

        // PostgreSQL crashes (no checkpoint, every session cut) while the device walks east.
        try pg.stop(mode: "immediate")
        let faultStart = Date().timeIntervalSince1970
        traffic.change { $0.position = Reference.east }
        let failing = await first.waitForMetrics(timeout: 15) { $0["whereabouts_storage_ok"] == 0 }
        #expect(failing?["whereabouts_storage_ok"] == 0, "storage never reported failing:\n\(first.log)")
        #expect(await collector.wait(timeout: 20) { _ in count("enter", "east") >= 1 }, "events stop while PostgreSQL is down:\n\(first.log)")
        try await Task.sleep(for: .seconds(2))
        try pg.start()
        let faultEnd = Date().timeIntervalSince1970
        let resumed = await first.waitForMetrics(timeout: 20) { $0["whereabouts_storage_ok"] == 1 && $0["whereabouts_storage_queue_depth"] == 0 }
        #expect(resumed != nil, "\(first.log)")
        #expect((resumed?["whereabouts_storage_errors_total"] ?? 0) > 0)
        #expect(resumed?["whereabouts_storage_dropped_total"] == 0)
        #expect(first.log.contains("writes resumed"), "\(first.log)")

        // Back west; then the aggregator is killed with the west visit open in PostgreSQL.
        traffic.change { $0.position = Reference.west }
        #expect(await collector.wait(timeout: 20) { _ in count("enter", "west") >= 2 }, "\(first.log)")
        try await Task.sleep(for: .seconds(1.5))
        first.kill9()
        let second = try AggregatorProcess(broker: broker, db: nil, directory: dir, name: "second", environment: environment, database: url)
        // The open west visit is carried over: the device goes on in west, no exit, no enter again.
        #expect(await poll(timeout: 20) { second.log.contains("1 visit(s) left open by an unclean stop: carried over") }, "\(second.log)")
        let placed = await second.waitForMetrics(timeout: 20) { $0["whereabouts_devices_tracked"] >= 1 }
        #expect(placed != nil, "\(second.log)")
        try await Task.sleep(for: .seconds(3))
        #expect(count("exit", "west") == 1 && count("enter", "west") == 2, "\(events())\n\(second.log)")
        await traffic.stop()
        #expect(await second.stop() == 0, "\(second.log)")
        #expect(await collector.wait { _ in count("exit", "west") >= 2 })

        let all = events()
        #expect(eventsAlternate(all), "\(all)")
        #expect(all.map { "\($0["type"]!) \($0["zone"]!)" } == ["enter west", "exit west", "enter east", "exit east",
                                                                 "enter west", "exit west"])
        let reader = try PostgresReader(url: pg.url("tracks", passfile: true))
        let visits = try reader.visits(zone: nil, device: nil, since: nil, until: nil)
        #expect(visits.count == 3 && visits.allSatisfy { $0.exit != nil }, "\(visits)")
        let missing = eventsNotStored(all, in: visits)
        #expect(missing.isEmpty, "published, not in PostgreSQL: \(missing)")
        // The track covers the outage: points positioned while the server was down were kept.
        var during: [TrackPoint] = []
        try reader.history(device: Reference.keys, since: faultStart, until: faultEnd) { during.append($0) }
        #expect(during.contains { $0.room == "east" }, "track points from the outage: \(during)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("postgres.pending").path))
    }
}
