import Foundation
import MQTT
import Storage
import Testing

/// The simulator's captures, replayed by one real `whereabouts-edge` per node into a real
/// broker and a real aggregator: the whole system as `make demo` runs it, checked.
/// Starts 100 s ago: the database's retention prunes by the wall clock, so a recording from
/// long ago would be pruned as soon as it is stored.
private let start = Int(Date().timeIntervalSince1970) - 100
private let scenario = """
    seed: 7
    duration: 80s
    start: \(start)
    effects: { shadowing_sd: 2, rician_k: 6, body_loss: 2 }
    devices:
      - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
        tx_power: -59
        interval_ms: 100
        speed: 1.0
        path:
          - { at: [1.2, 2.0], dwell: 30s }     # still in the west room
          - { at: [4.8, 2.0], dwell: 45s }     # through the door at (3, 2), then still in the east room
    """

private func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let p = Process()
    p.executableURL = executable(name)
    p.arguments = arguments
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try runUnmasked(p)
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

@Test(.timeLimit(.minutes(2)))
func simulatedCapturesReplayedByEdgesBecomeTheTrueRoomEvents() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("simsite-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let site = packageRoot.appendingPathComponent("tools/sites/reference.yaml").path
    let scenarioFile = dir.appendingPathComponent("scenario.yaml")
    try scenario.write(to: scenarioFile, atomically: true, encoding: .utf8)
    let sim = dir.appendingPathComponent("sim")
    let simulated = try run("whereabouts", ["simulate", "--site", site, "--scenario", scenarioFile.path, "--out", sim.path])
    #expect(simulated.status == 0, "\(simulated.output)")
    let captures = try FileManager.default.contentsOfDirectory(atPath: sim.path).filter { $0.hasSuffix(".btsnoop") }.sorted()
    #expect(captures == ["ne.btsnoop", "nw.btsnoop", "se.btsnoop", "sw.btsnoop"])

    let broker = try Broker()
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events", "whereabouts/devices/+/room",
                                                            "whereabouts/nodes/+/status", "whereabouts/aggregator/status"])
    try await collector.ready()
    let db = dir.appendingPathComponent("tracks.db")
    let aggregator = Process()
    aggregator.executableURL = executable("whereabouts-aggregator")
    aggregator.arguments = ["--site", site, "--broker", broker.url, "--db", db.path, "--http", "none"]
    let log = dir.appendingPathComponent("aggregator.log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    aggregator.standardOutput = try FileHandle(forWritingTo: log)
    aggregator.standardError = try FileHandle(forWritingTo: log)
    try runUnmasked(aggregator)
    defer { if aggregator.isRunning { kill(aggregator.processIdentifier, SIGKILL) } }
    let text = { (m: MQTTMessage) in String(decoding: m.payload, as: UTF8.self) }
    #expect(await collector.wait { $0.contains { $0.topic == "whereabouts/aggregator/status" && text($0) == "online" } })

    // One edge per node, each replaying its own capture at 8× its timing.
    let edges = try captures.map { capture in
        try EdgeProcess(["--node", String(capture.dropLast(8)), "--broker", broker.url,
                         "--replay", sim.appendingPathComponent(capture).path, "--speed", "8"])
    }
    for edge in edges { #expect(await edge.exitStatus(timeout: 60) == 0, "\(edge.stderr)") }
    #expect(await collector.wait { $0.filter { $0.topic.hasSuffix("/status") && $0.topic.contains("/nodes/") && text($0) == "offline" }.count == 4 })

    let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.payload))) as? [String: Any] } }
    #expect(await collector.wait { _ in events().count >= 3 }, "\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    #expect(events().map { "\($0["type"] ?? "") \($0["zone"] ?? "")" } == ["enter west", "exit west", "enter east"])
    // The device reaches the door about 31.8 s into the scenario (30 s still, 1.8 m at 1 m/s).
    let crossing = try #require(events().last?["t"] as? Double) - Double(start)
    #expect(crossing > 31 && crossing < 40, "room changed \(crossing) s into the scenario")

    kill(aggregator.processIdentifier, SIGTERM)
    aggregator.waitUntilExit()
    #expect(aggregator.terminationStatus == 0)
    let visits = try TrackReader(path: db.path).visits()
    #expect(visits.map(\.zone) == ["west", "east"] && visits.allSatisfy { $0.exit != nil }, "\(visits)")
}
