import Foundation
import MQTT
import Storage
import Testing
import Wire

/// A site without a floor plan, end to end through a real broker and the aggregator process:
/// three rooms by name, a node in each, a tag that stays in the kitchen, walks to the living room
/// and stays there. Rooms, events with one exit per enter, occupancy, state without coordinates.
@Suite(.serialized) struct RoomsWithoutPlanEndToEndTests {
    static let siteText = """
        floors:
          - id: house
            rooms:
              - { id: kitchen, name: Kitchen }
              - { id: living, name: Living room }
              - { id: hall }
        nodes:
          - { name: kitchen-pi, room: kitchen }
          - { name: living-pi, room: living }
          - { name: hall-pi, room: hall }
        positioning: { away_after: 30s }
        """
    static let tag = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-7"

    /// One batch per node: the node of `room` hears the tag loud, the others faint.
    static func batches(in room: String, t: Double, seq: UInt64) -> [(topic: String, payload: [UInt8])] {
        [("kitchen-pi", "kitchen"), ("living-pi", "living"), ("hall-pi", "hall")].map { node, own in
            let rssi = own == room ? -58 : (own == "hall" ? -78 : -84)
            var w = JSONWriter()
            Batch(node: node, seq: seq, t: t, readings: [Reading(id: tag, rssi: rssi, tx: -59, t: t, kind: .ibeacon)]).encode(into: &w)
            return ("whereabouts/nodes/\(node)/readings", w.bytes)
        }
    }

    static func stay(_ client: MQTTClient, in room: String, steps: Int, seq: inout UInt64) async throws {
        for _ in 0..<steps {
            for b in batches(in: room, t: Date().timeIntervalSince1970, seq: seq) { try client.publish(b.topic, b.payload, qos: .atLeastOnce) }
            seq += 1
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    static func json(_ m: MQTTMessage) -> [String: Any] { (try? JSONSerialization.jsonObject(with: Data(m.payload))) as? [String: Any] ?? [:] }
    static func text(_ m: MQTTMessage) -> String { String(decoding: m.payload, as: UTF8.self) }

    @Test(.timeLimit(.minutes(2)))
    func roomsEventsAndOccupancyWithoutAFloorPlan() async throws {
        let broker = try Broker()
        try broker.start()
        defer { broker.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("noplan-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let site = dir.appendingPathComponent("site.yaml"), db = dir.appendingPathComponent("tracks.db"), log = dir.appendingPathComponent("agg.log")
        try Self.siteText.write(to: site, atomically: true, encoding: .utf8)
        let collector = try Collector(broker: broker, filters: ["whereabouts/devices/#", "whereabouts/zones/#", "whereabouts/aggregator/status"])
        try await collector.ready()
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let aggregator = Process()
        aggregator.executableURL = executable("whereabouts-aggregator")
        aggregator.arguments = ["--site", site.path, "--broker", broker.url, "--db", db.path, "--http", "none"]
        aggregator.standardOutput = try FileHandle(forWritingTo: log)
        aggregator.standardError = try FileHandle(forWritingTo: log)
        try runUnmasked(aggregator)
        defer { if aggregator.isRunning { kill(aggregator.processIdentifier, SIGKILL); aggregator.waitUntilExit() } }
        let output = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        #expect(await collector.wait { $0.contains { $0.topic == "whereabouts/aggregator/status" && Self.text($0) == "online" } }, "\(output())")

        var seq: UInt64 = 0
        try await Self.stay(collector.client, in: "kitchen", steps: 20, seq: &seq)
        try await Self.stay(collector.client, in: "living", steps: 24, seq: &seq)
        let room = "whereabouts/devices/\(Self.tag)/room"
        #expect(await collector.wait { $0.filter { $0.topic == room }.map(Self.text).last == "living" }, "\(output())")
        #expect(collector.messages(on: room).map(Self.text) == ["kitchen", "living"])
        let events = collector.messages.filter { $0.topic.hasSuffix("/events") }.map(Self.json)
        #expect(events.map { "\($0["type"]!) \($0["zone"]!)" } == ["enter kitchen", "exit kitchen", "enter living"])
        let state = try #require(collector.messages(on: "whereabouts/devices/\(Self.tag)/state").last.map(Self.json))
        #expect(state["room"] as? String == "living" && state["floor"] as? String == "house")
        #expect(state["x"] is NSNull && state["y"] is NSNull && state["z"] is NSNull, "\(state)")
        #expect((state["nearest"] as? [String: Any])?["node"] as? String == "living-pi")
        #expect(collector.messages(on: "whereabouts/zones/living/occupancy").map(Self.json).last?["count"] as? Int == 1)
        #expect(collector.messages(on: "whereabouts/zones/kitchen/occupancy").map(Self.json).last?["count"] as? Int == 0)

        // A clean stop closes the open visit: one exit per enter, stored too.
        kill(aggregator.processIdentifier, SIGTERM)
        #expect(await poll(timeout: 15) { !aggregator.isRunning } && aggregator.terminationStatus == 0, "\(output())")
        #expect(await collector.wait { $0.last { $0.topic.hasSuffix("/events") }.map(Self.json)?["type"] as? String == "exit" })
        let all = collector.messages.filter { $0.topic.hasSuffix("/events") }.map(Self.json)
        for zone in ["kitchen", "living"] {
            let kinds = all.filter { $0["zone"] as? String == zone }.compactMap { $0["type"] as? String }
            #expect(kinds == ["enter", "exit"], "\(zone): \(kinds)")
        }
        let visits = try TrackReader(path: db.path).visits()
        #expect(visits.map(\.zone) == ["kitchen", "living"] && visits.allSatisfy { $0.exit != nil })
    }
}
