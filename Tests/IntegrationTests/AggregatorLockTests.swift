import Foundation
import MQTT
import Storage
import Testing

/// A second aggregator started on the database a first one writes (a second unit, a manual
/// run) exits 1 naming the first's pid, and touches nothing: the first's open visit stays
/// open and no exit is published (before: it closed the live visit as a crash's and
/// published its exit while the device was still there). `whereabouts visits` still reads the
/// database meanwhile, and once the first stops, an aggregator starts on the file again.
@Test(.timeLimit(.minutes(2)))
func aSecondAggregatorOnTheSameDatabaseExits1AndTouchesNothing() async throws {
    let dir = try faultDirectory("second")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events"])
    try await collector.ready()
    let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
    let traffic = try Traffic(broker: broker)
    let first = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "first")
    #expect(await collector.wait(timeout: 20) { _ in events().contains { $0["type"] as? String == "enter" } }, "\(first.log)")
    try await Task.sleep(for: .seconds(1))   // the enter reaches the database

    let second = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "second", extra: ["--client-id", "second"])
    #expect(await poll(timeout: 15) { !second.isRunning }, "\(second.log)")
    #expect(await second.stop() == 1)
    let pid = first.process.processIdentifier
    #expect(second.log.contains("cannot start: another process (pid \(pid)) is writing this database (it holds \(db.path).lock)"),
            "\(second.log)")
    #expect(!second.log.contains("left open"), "\(second.log)")
    #expect(first.isRunning)
    try await Task.sleep(for: .seconds(1))   // time for a wrong exit to arrive
    #expect(!events().contains { $0["type"] as? String == "exit" }, "\(events())")
    let visits = try runCommand(executable("whereabouts").path, ["visits", "--db", db.path, "--format", "json"])
    #expect(visits.status == 0 && visits.output.contains("\"exit\":null"), "\(visits)")
    #expect(try TrackReader(path: db.path).openVisits().count == 1)

    await traffic.stop()
    #expect(await first.stop() == 0, "\(first.log)")
    let third = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "third")
    #expect(await poll(timeout: 15) { third.log.contains("running:") }, "\(third.log)")
    #expect(await third.stop() == 0, "\(third.log)")
}
