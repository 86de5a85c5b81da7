import Foundation
import MQTT
import Testing

/// SIGHUP makes the running aggregator read its calibration file again (`--calibration`):
/// a good file is applied without losing the device's visit (no second enter, one exit at the
/// stop), a bad one is refused with its problem logged and counted, the old one kept.
@Test(.timeLimit(.minutes(2)))
func sighupReloadsTheCalibrationKeepingTracksAndRefusesABadFile() async throws {
    let dir = try faultDirectory("reload")
    defer { try? FileManager.default.removeItem(at: dir) }
    let cal = dir.appendingPathComponent("cal.yaml")
    try "version: 1\nabsorption: 2.7\n".write(to: cal, atomically: true, encoding: .utf8)
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events"])
    try await collector.ready()
    let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
    let traffic = try Traffic(broker: broker)
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir, extra: ["--calibration", cal.path])
    #expect(await collector.wait(timeout: 20) { _ in events().contains { $0["type"] as? String == "enter" } }, "\(aggregator.log)")

    let map = """
        version: 1
        absorption: 2.9
        radio_map:
          bandwidth: 1.5
          prior: 1
          limit: 10
          nodes:
            - name: sw
              floor: main
              points:
                - [1.0, 1.0, -2.0, 1.0]
                - [2.0, 2.0, -1.0, 1.0]

        """
    try map.write(to: cal, atomically: true, encoding: .utf8)
    kill(aggregator.process.processIdentifier, SIGHUP)
    #expect(await poll(timeout: 5) { aggregator.log.contains("calibration \(cal.path) reloaded: absorption 2.9, 1 radio map layers") }, "\(aggregator.log)")
    let applied = await aggregator.waitForMetrics { $0["whereabouts_calibration_reloads_total{outcome=\"applied\"}"] == 1 }
    #expect(applied?["whereabouts_calibration_reloads_total{outcome=\"applied\"}"] == 1, "\(applied?.description ?? "no metrics")")

    try "version: 1\nabsorption: 99\n".write(to: cal, atomically: true, encoding: .utf8)
    kill(aggregator.process.processIdentifier, SIGHUP)
    #expect(await poll(timeout: 5) { aggregator.log.contains("calibration \(cal.path) refused") }, "\(aggregator.log)")
    #expect(aggregator.log.contains("\(cal.path):2: absorption"), "the problem with its line: \(aggregator.log)")
    let refused = await aggregator.waitForMetrics { $0["whereabouts_calibration_reloads_total{outcome=\"refused\"}"] == 1 }
    #expect(refused?["whereabouts_calibration_reloads_total{outcome=\"refused\"}"] == 1, "\(refused?.description ?? "no metrics")")
    #expect(refused?["whereabouts_calibration_reloads_total{outcome=\"applied\"}"] == 1, "the good reload still counted once")

    try await Task.sleep(for: .seconds(2))
    #expect(aggregator.isRunning)
    await traffic.stop()
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
    #expect(await collector.wait { _ in events().contains { $0["type"] as? String == "exit" } })
    // The visit survived both reloads: one enter before them, its one exit at the stop.
    #expect(events().map { $0["type"] as? String ?? "-" } == ["enter", "exit"], "\(events())")
}
