import Foundation
import MQTT
import Testing
import Wire

/// A million readings from four publishers at once, as fast as each can send (an outage's
/// end, when every edge flushes its buffer): the aggregator stops reading while its work
/// queue is full, the broker holds the rest, and none is shed.
@Test(.timeLimit(.minutes(5)))
func aBurstFromFourPublishersShedsNothing() async throws {
    let dir = try faultDirectory("burst4")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let status = try Collector(broker: broker, filters: ["whereabouts/aggregator/status"])
    try await status.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir)
    #expect(await status.wait(timeout: 20) { $0.contains { payloadText($0) == "online" } }, "\(aggregator.log)")

    let publishers = try (0..<4).map { _ in try Collector(broker: broker, filters: []) }
    for p in publishers { try await p.ready() }
    let perBatch = 200, batchesEach = 1_250
    let start = Date()
    await withTaskGroup(of: Void.self) { group in
        for (k, publisher) in publishers.enumerated() {
            group.addTask { burst(from: publisher, node: Reference.nodes[k].name, batches: batchesEach, perBatch: perBatch) }
        }
    }
    let published = Date().timeIntervalSince(start)

    let total = Double(perBatch * batchesEach * publishers.count)
    let counted = await aggregator.waitForMetrics(timeout: 240) { m in
        m.total("whereabouts_readings_total") + m.total("whereabouts_rejected_total") >= total
    }
    let m = try #require(counted)
    let took = Date().timeIntervalSince(start)
    let peak = peakResidentMegabytes(of: aggregator.process.processIdentifier)
    print("burst of four: published \(Int(total)) readings in \(String(format: "%.1f", published)) s; accepted "
          + "\(Int(m.total("whereabouts_readings_total"))), rejected \(Int(m.total("whereabouts_rejected_total"))) "
          + "(\(Int(m.rejected("late"))) late), shed \(Int(m["whereabouts_shed_messages_total"])) messages after \(String(format: "%.1f", took)) s; read paused "
          + "\(Int(m["whereabouts_mqtt_read_pauses_total"])) times, \(String(format: "%.1f", m["whereabouts_mqtt_read_paused_seconds_total"])) s; "
          + "peak RSS \(peak) MB")
    // Every reading is accepted, or refused as late: the four publishers' clocks can reach the
    // aggregator more than its 5 s lateness apart when the broker favours one (a backlog the
    // aggregator does not yet solve, docs/operations.md, Outages and bursts). Nothing else.
    #expect(m.total("whereabouts_readings_total") + m.rejected("late") == total, "\(m)")
    #expect(m.total("whereabouts_rejected_total") == m.rejected("late"))
    #expect(m["whereabouts_shed_messages_total"] == 0)
    // Whether the work queue filled depends on which is slower here, the network thread's
    // decoding or the engine: the pauses are counted, not required.
    #expect(m.description.contains("\nwhereabouts_mqtt_read_pauses_total "), "\(m)")
    #expect(m.description.contains("\nwhereabouts_mqtt_read_paused_seconds_total "))
    #expect(aggregator.isRunning)
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
    for p in publishers { p.client.disconnect() }
}

/// `batches` batches of `perBatch` readings of 50 devices from `node`, published back to back
/// at QoS 0 as an edge does.
private func burst(from publisher: Collector, node: String, batches: Int, perBatch: Int) {
    let devices = (0..<50).map { "mac:c2:3a:6b:00:01:\(String(format: "%02x", $0))" }
    for b in 0..<batches {
        let t = Date().timeIntervalSince1970
        let readings = (0..<perBatch).map { i in
            Reading(id: devices[(b * perBatch + i) % devices.count], rssi: -50 - (i % 40), t: t - 0.01, kind: .mac)
        }
        var w = JSONWriter(capacity: 24_000)
        Batch(node: node, seq: UInt64(b + 1), t: t, readings: readings).encode(into: &w)
        while (try? publisher.client.publish(Reference.readingsTopic(node), w.bytes, qos: .atMostOnce)) == nil {
            usleep(1_000)
        }
    }
}

/// The peak resident set of process `pid` (VmHWM), in MB.
func peakResidentMegabytes(of pid: Int32) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kB = Int(line.split(separator: " ").dropFirst().first ?? "") else { return -1 }
    return kB / 1024
}
