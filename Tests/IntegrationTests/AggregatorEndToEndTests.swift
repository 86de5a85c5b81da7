import Foundation
import MQTT
import Storage
import Testing
import Wire

/// The reference site of the peers: two rooms split by a wall at x = 3 with a door.
private let site = packageRoot.appendingPathComponent("tools/sites/reference.yaml")
private let nodes: [(name: String, x: Double, y: Double, z: Double)] = [
    ("sw", 0.1, 0.1, 1.2), ("se", 5.9, 0.1, 1.2), ("ne", 5.9, 3.9, 2.2), ("nw", 0.1, 3.9, 2.2),
]
private let keys = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"

/// Readings as the site's own model predicts them (exponent 2.7, 4 dB through the wall).
private func batches(at p: (x: Double, y: Double), t: Double, seq: UInt64) -> [(topic: String, payload: [UInt8])] {
    nodes.map { node in
        let d = max(0.1, ((p.x - node.x) * (p.x - node.x) + (p.y - node.y) * (p.y - node.y) + (1 - node.z) * (1 - node.z)).squareRoot())
        let wall = (p.x < 3) != (node.x < 3) ? 4.0 : 0
        let rssi = Int((-59 - 27 * log10(d) - wall).rounded())
        var w = JSONWriter()
        Batch(node: node.name, seq: seq, t: t, readings: [Reading(id: keys, rssi: rssi, tx: -59, t: t, kind: .ibeacon)]).encode(into: &w)
        return ("whereabouts/nodes/\(node.name)/readings", w.bytes)
    }
}

/// Publishes 4 batches a second, one per node, with event time = wall time, while `path`
/// says where the device is at each step.
private func walk(_ client: MQTTClient, steps: Int, seq: inout UInt64, path: (Int) -> (x: Double, y: Double)) async throws {
    for i in 0..<steps {
        let t = Date().timeIntervalSince1970
        for b in batches(at: path(i), t: t, seq: seq) { try client.publish(b.topic, b.payload, qos: .atLeastOnce) }
        seq += 1
        try await Task.sleep(for: .milliseconds(250))
    }
}

private final class Aggregator: @unchecked Sendable {
    let process = Process()
    let log: URL
    init(broker: Broker, db: URL, http: Int) throws {
        log = db.deletingPathExtension().appendingPathExtension("log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = executable("whereabouts-aggregator")
        process.arguments = ["--site", site.path, "--broker", broker.url, "--db", db.path, "--http", "127.0.0.1:\(http)"]
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        try runUnmasked(process)
    }
    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    func exitStatus(timeout: Double = 15) async -> Int32? {
        guard await poll(timeout: timeout, { !self.process.isRunning }) else { return nil }
        return process.terminationStatus
    }
}

private func text(_ m: MQTTMessage) -> String { String(decoding: m.payload, as: UTF8.self) }

private func json(_ m: MQTTMessage) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(m.payload))) as? [String: Any] ?? [:]
}

private func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("agg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

@Test(.timeLimit(.minutes(2)))
func batchesBecomeRoomsEventsAndOccupancyForAPlainSubscriber() async throws {
    let broker = try Broker()
    try broker.start()
    defer { broker.stop() }
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    let collector = try Collector(broker: broker, filters: ["whereabouts/devices/#", "whereabouts/zones/#", "whereabouts/aggregator/status"])
    try await collector.ready()
    let aggregator = try Aggregator(broker: broker, db: db, http: try freePort())
    #expect(await collector.wait { $0.contains { $0.topic == "whereabouts/aggregator/status" && text($0) == "online" } }, "\(aggregator.output)")

    // Still in the west room, then through the door into the east room, then still there.
    var seq: UInt64 = 0
    try await walk(collector.client, steps: 16, seq: &seq) { _ in (1.2, 2.0) }
    try await walk(collector.client, steps: 12, seq: &seq) { i in (1.2 + 3.6 * Double(i) / 11, 2.0) }
    try await walk(collector.client, steps: 16, seq: &seq) { _ in (4.8, 2.0) }

    let room = "whereabouts/devices/\(keys)/room"
    #expect(await collector.wait { $0.filter { $0.topic == room }.map(text).last == "east" }, "\(aggregator.output)")
    #expect(collector.messages(on: room).map(text) == ["west", "east"])
    let events = collector.messages.filter { $0.topic.hasSuffix("/events") }.map(json)
    #expect(events.map { "\($0["type"]!) \($0["zone"]!)" } == ["enter west", "exit west", "enter east"])
    let state = try #require(collector.messages(on: "whereabouts/devices/\(keys)/state").last.map(json))
    #expect(state["room"] as? String == "east" && state["floor"] as? String == "main")
    let x = try #require(state["x"] as? Double), y = try #require(state["y"] as? Double)
    #expect(abs(x - 4.8) < 0.6 && abs(y - 2.0) < 0.6, "still position \(x), \(y)")
    let occupancy = collector.messages(on: "whereabouts/zones/east/occupancy").map(json).last
    #expect(occupancy?["count"] as? Int == 1)

    // A clean stop closes the open visit with an exit, and says offline.
    kill(aggregator.process.processIdentifier, SIGTERM)
    #expect(await aggregator.exitStatus() == 0, "\(aggregator.output)")
    #expect(await collector.wait { $0.last { $0.topic.hasSuffix("/events") }.map(json)?["type"] as? String == "exit" })
    #expect(collector.messages(on: "whereabouts/aggregator/status").map(text).last == "offline")
    let visits = try TrackReader(path: db.path).visits()
    #expect(visits.map(\.zone) == ["west", "east"])
    #expect(visits.allSatisfy { $0.exit != nil })
}

/// A `kill -9` leaves the west visit open in the database: the next start carries it over (the
/// device stays in west, no exit, no second enter), and its clean stop closes it with one exit.
@Test(.timeLimit(.minutes(2)))
func aKilledAggregatorCarriesItsOpenVisitOverAndClosesItOnce() async throws {
    let broker = try Broker()
    try broker.start()
    defer { broker.stop() }
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events", "whereabouts/aggregator/status"])
    try await collector.ready()
    let first = try Aggregator(broker: broker, db: db, http: try freePort())
    #expect(await collector.wait { $0.contains { text($0) == "online" } }, "\(first.output)")
    var seq: UInt64 = 0
    try await walk(collector.client, steps: 16, seq: &seq) { _ in (1.2, 2.0) }
    #expect(await collector.wait { $0.contains { json($0)["type"] as? String == "enter" } }, "\(first.output)")

    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()
    #expect(try TrackReader(path: db.path).integrityCheck() == "ok")

    let second = try Aggregator(broker: broker, db: db, http: try freePort())
    let of = { (type: String) in collector.messages.filter { json($0)["type"] as? String == type } }
    #expect(await collector.wait { $0.filter { text($0) == "online" }.count >= 2 }, "\(second.output)")
    #expect(second.output.contains("1 visit(s) left open by an unclean stop: carried over"), "\(second.output)")
    try await Task.sleep(for: .seconds(2))
    #expect(of("exit").isEmpty && of("enter").count == 1, "\(collector.messages.map(text))\n\(second.output)")

    kill(second.process.processIdentifier, SIGTERM)
    #expect(await second.exitStatus() == 0, "\(second.output)")
    #expect(await collector.wait { _ in of("exit").count == 1 }, "\(second.output)")
    let exit = try #require(of("exit").first.map(json))
    #expect(exit["zone"] as? String == "west")
    #expect(exit["device"] as? String == keys)
    let visits = try TrackReader(path: db.path).visits()
    #expect(visits.count == 1 && visits[0].exit != nil, "\(visits)")
    #expect(try TrackReader(path: db.path).integrityCheck() == "ok")
}
