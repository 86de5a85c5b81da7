import Foundation
import MQTT
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A node's MQTT connection as a separate process with the edge's last will (`offline`,
/// retained, on its status topic), so a `kill -9` makes the broker fire the will.
private func nodeConnection(_ node: String, broker: Broker) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
    p.arguments = ["-h", "127.0.0.1", "-p", "\(broker.port)", "-i", "edge-\(node)", "-t", "whereabouts/nodes/\(node)/cmd",
                   "--will-topic", "whereabouts/nodes/\(node)/status", "--will-payload", "offline", "--will-retain", "--will-qos", "1"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try runUnmasked(p)
    return p
}

/// A node dies (its last will fires) and falls silent: /metrics shows it down, its readings
/// age out of the window, and the device's position goes on from the three other nodes.
@Test(.timeLimit(.minutes(2)))
func aDeadNodeShowsDownAndPositionsContinueFromTheOthers() async throws {
    let dir = try faultDirectory("node")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/devices/+/state"])
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir)
    let ne = try nodeConnection("ne", broker: broker)
    defer { if ne.isRunning { kill(ne.processIdentifier, SIGKILL) } }
    for node in Reference.nodes {
        try collector.client.publish("whereabouts/nodes/\(node.name)/status", Array("online".utf8), qos: .atLeastOnce, retain: true)
    }
    let traffic = try Traffic(broker: broker)
    #expect(await aggregator.waitForMetrics(timeout: 20) { $0["whereabouts_nodes_online"] == 4 } != nil, "\(aggregator.log)")
    let states = { collector.messages.map(jsonObject) }
    #expect(await collector.wait(timeout: 20) { _ in states().last?["fixes"] as? Int == 4 }, "\(aggregator.log)")

    traffic.change { $0.silent = ["ne"] }
    kill(ne.processIdentifier, SIGKILL)
    let down = await aggregator.waitForMetrics { $0["whereabouts_node_up{node=\"ne\"}"] == 0 }
    #expect(down?["whereabouts_nodes_online"] == 3, "\(down?.description ?? aggregator.log)")
    #expect(down?["whereabouts_node_up{node=\"sw\"}"] == 1)

    // After the 3 s window the device is placed from three nodes, still in the west room,
    // and its state keeps coming. A still device heard at steady levels is solved at least
    // every `holdLimit` (3 s), and its state is published when it changes (the fix moved
    // when the node dropped out) and otherwise at the state heartbeat (10 s, site default):
    // a state made from three nodes after the window takes up to 13 s.
    let silentSince = Date().timeIntervalSince1970
    #expect(await collector.wait(timeout: 25) { _ in
        states().last.map { ($0["fixes"] as? Int) == 3 && ($0["t"] as? Double ?? 0) > silentSince + 3.5 } ?? false
    }, "\(states().suffix(3))")
    // Two more states (heartbeats at least) take up to 26 s.
    let count = collector.messages.count
    #expect(await collector.wait(timeout: 30) { $0.count >= count + 2 })
    let recent = states().suffix(3)
    #expect(recent.allSatisfy { $0["room"] as? String == "west" && ($0["fixes"] as? Int) == 3 }, "\(recent)")
    await traffic.stop()
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}

/// Nodes whose clocks are off by seconds, one ahead and one behind, and one whose clock
/// steps forward mid-run (an NTP step): the aggregator corrects each from batch time versus
/// arrival, so their readings are not refused as late, none pushes event time ahead of the
/// others, and the device stays placed in the right room.
@Test(.timeLimit(.minutes(2)))
func nodeClocksOffBySecondsAreCorrectedAndCostNoReadings() async throws {
    let dir = try faultDirectory("clock")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/devices/+/room", "whereabouts/devices/+/state"])
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir)
    // Off from their first batch: a clock set back by more than the 5 s lateness after the
    // aggregator has seen it costs that node's readings until the estimate forgets (≤ 10 s).
    let traffic = try Traffic(broker: broker, settings: Traffic.Settings(position: Reference.east, clockError: ["se": 8, "nw": -6]))
    let room = "whereabouts/devices/\(Reference.keys)/room"
    #expect(await collector.wait(timeout: 20) { $0.contains { $0.topic == room && payloadText($0) == "east" } }, "\(aggregator.log)")

    traffic.change { $0.clockError["sw"] = 30 }
    try await Task.sleep(for: .seconds(2))
    let before = try #require(await aggregator.metrics())
    try await Task.sleep(for: .seconds(4))
    let after = try #require(await aggregator.metrics())
    await traffic.stop()
    // Four batches a second from each node, each with one reading: 16 in 4 s, give or take one.
    for node in Reference.nodes.map(\.name) {
        #expect(after.readings(node) - before.readings(node) >= 14,
                "\(node): \(Reference.nodes.map { "\($0.name) \(after.readings($0.name) - before.readings($0.name))" })\n\(after)")
    }
    #expect(after.rejected("late") == before.rejected("late"), "\(after)")
    let rooms = collector.messages(on: room).map(payloadText).drop { $0 == "away" }
    #expect(Array(rooms) == ["east"], "\(aggregator.log)")
    let lastState = try #require(collector.messages(on: room.replacingOccurrences(of: "/room", with: "/state")).last.map(jsonObject))
    let t = try #require(lastState["t"] as? Double)
    #expect(t <= Date().timeIntervalSince1970 + 1, "event time ran ahead of the wall clock: \(t)")
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}
