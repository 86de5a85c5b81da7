import Foundation
import MQTT
import Wire

/// What the four nodes of `tools/sites/reference.yaml` would publish while one beacon walks
/// between its two rooms: status, telemetry and reading batches, plus the faults operators
/// watch for (a malformed payload, a late reading, a lost batch), so every metric the
/// dashboards chart has samples.
struct ReferenceFeed {
    static let site = packageRoot.appendingPathComponent("tools/sites/reference.yaml")
    static let nodes: [(name: String, x: Double, y: Double, z: Double)] = [
        ("sw", 0.1, 0.1, 1.2), ("se", 5.9, 0.1, 1.2), ("ne", 5.9, 3.9, 2.2), ("nw", 0.1, 3.9, 2.2),
    ]
    static let device = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"

    private var seq: UInt64 = 0
    private var steps = 0

    /// Where the beacon is at step `i` (4 steps a second): still in the west room for 4 s,
    /// through the door to the east room, still there, and back, every 16 s.
    static func position(_ i: Int) -> (x: Double, y: Double) {
        let phase = Double(i % 64) / 16
        let x: Double = switch phase {
        case ..<1: 1.2
        case ..<2: 1.2 + 3.6 * (phase - 1)
        case ..<3: 4.8
        default: 4.8 - 3.6 * (phase - 3)
        }
        return (x, 2.0)
    }

    /// One reading batch per node, with the RSSI the site's own model predicts
    /// (exponent 2.7, 4 dB through the wall at x = 3).
    private func batches(at p: (x: Double, y: Double), t: Double, late: Bool) -> [(topic: String, payload: [UInt8])] {
        Self.nodes.map { node in
            let dz = 1 - node.z
            let d = max(0.1, ((p.x - node.x) * (p.x - node.x) + (p.y - node.y) * (p.y - node.y) + dz * dz).squareRoot())
            let wall = (p.x < 3) != (node.x < 3) ? 4.0 : 0
            let rssi = Int((-59 - 27 * log10(d) - wall).rounded())
            var readings = [Reading(id: Self.device, rssi: rssi, tx: -59, t: t, kind: .ibeacon)]
            // Heard 30 s ago: behind the engine's event-time window, refused as late.
            if late { readings.append(Reading(id: Self.device, rssi: rssi, tx: -59, t: t - 30, kind: .ibeacon)) }
            var w = JSONWriter()
            Batch(node: node.name, seq: seq, t: t, readings: readings).encode(into: &w)
            return ("whereabouts/nodes/\(node.name)/readings", w.bytes)
        }
    }

    /// Retained `online` for every node, as each edge does when it connects.
    func announce(_ client: MQTTClient) throws {
        for node in Self.nodes {
            try client.publish("whereabouts/nodes/\(node.name)/status", Array("online".utf8), qos: .atLeastOnce, retain: true)
        }
    }

    /// One step (a quarter second of traffic): a batch per node; every fourth step telemetry
    /// and a late reading; at step 8 a malformed payload and a lost batch (a seq gap).
    mutating func step(_ client: MQTTClient) throws {
        let t = Date().timeIntervalSince1970
        let everySecond = steps % 4 == 0
        for b in batches(at: Self.position(steps), t: t, late: everySecond) {
            try client.publish(b.topic, b.payload, qos: .atLeastOnce)
        }
        if everySecond {
            for node in Self.nodes {
                let telemetry = #"{"version":"test","adapter":"hci0","uptime":\#(steps / 4),"adverts":\#(steps * 12),"published":\#(steps * 4),"dropped":\#(steps / 8),"buffered":\#(steps % 3)}"#
                try client.publish("whereabouts/nodes/\(node.name)/telemetry", Array(telemetry.utf8), qos: .atMostOnce, retain: true)
            }
        }
        if steps == 8 {
            try client.publish("whereabouts/nodes/sw/readings", Array("not a batch".utf8), qos: .atLeastOnce)
            seq += 1
        }
        seq += 1
        steps += 1
    }

    /// Publishes `steps` steps, a quarter second apart.
    mutating func run(_ client: MQTTClient, steps count: Int) async throws {
        for _ in 0..<count {
            try step(client)
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}

/// The aggregator binary on the reference site, with its log beside the database.
func startAggregator(broker: String, directory: URL, http: Int, extra: [String] = [], site: URL = ReferenceFeed.site) throws -> Daemon {
    try Daemon(executable("whereabouts-aggregator"),
               ["--site", site.path, "--broker", broker, "--db", directory.appendingPathComponent("tracks.db").path,
                "--http", "127.0.0.1:\(http)"] + extra,
               log: directory.appendingPathComponent("aggregator.log"))
}
