import Foundation
import Testing
import Wire
import SiteModel
import MQTT
import Positioning
@testable import Aggregator

/// Node a beacons; b, c and d hear it and a device for 20 s. The beacon must leave no trace
/// in what the aggregator publishes or stores, only in its own counter.
@Test func aNodeBeaconIsCountedNeverPublished() {
    let beacon = "mac:c2:00:00:00:00:0a", device = "mac:aa:bb:cc:00:00:01"
    var site = twoRoomSite()
    site.nodes[0].beacon = beacon
    let topics = Topics()
    let metrics = AggregatorMetrics()
    let core = AggregatorCore(site: site, topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: metrics)
    var effects: [Effect] = []
    var seq: UInt64 = 0
    for step in 0..<80 {
        let t = 1000 + Double(step) * 0.25
        seq += 1
        for (node, rssi) in [("a", -62), ("b", -75), ("c", -77), ("d", -68)] {
            var readings = [Reading(id: device, rssi: rssi, t: t - 0.02, kind: .mac)]
            if node != "a" { readings.append(Reading(id: beacon, rssi: rssi - 5, t: t - 0.01, kind: .mac)) }
            var w = JSONWriter(capacity: 1024)
            Batch(node: node, seq: seq, t: t, readings: readings).encode(into: &w)
            w.bytes.withUnsafeBytes { core.handle(topic: topics.nodeReadings(node), payload: $0, arrival: t, into: &effects) }
        }
    }
    var ids: Set<String> = [], topicsSeen: [String] = []
    for effect in effects {
        switch effect {
        case .publish(let m), .state(let m, _): topicsSeen.append(m.topic)
        case .event(let e, let messages), .lateEvent(let e, let messages): ids.insert(e.device); topicsSeen += messages.map(\.topic)
        case .track(let u), .backfilledTrack(let u): ids.insert(u.id)
        case .nodeHealth, .forget: break
        }
    }
    #expect(!topicsSeen.isEmpty)
    #expect(!topicsSeen.contains { $0.contains(beacon) })
    #expect(!ids.contains(beacon))
    #expect(ids.contains(device))
    #expect(metrics.beaconReadings.current == 80 * 3)
    #expect(core.engine.beaconLinks.heard.map(\.count) == [80, 80, 80])
    #expect(metrics.registry.render().contains("whereabouts_node_beacon_readings_total 240"))
}

/// `/api/calibration`: the running fit, or why there is none yet.
@Test func theRunningCalibrationIsServedAsJSON() throws {
    var site = twoRoomSite()
    site.positioning.absorption = 2.7
    let offsets = [3.0, -1.0, 0.0, -2.0]   // dB each receiver hears loud; they sum to 0
    for i in site.nodes.indices { site.nodes[i].beacon = "mac:c2:00:00:00:00:0\(i)" }
    var links = NodeBeaconLinks(nodeCount: 4)
    #expect(String(decoding: HTTPEndpoints.calibrationJSON(site: site, links: links), as: UTF8.self)
            == #"{"error":"nodes a, b, c, d heard no other node's beacon 10 times (on a floor they share): their rx_adj cannot be fitted; make more nodes beacon, or check the nodes","readings":0,"matrix":[]}"#)
    modelLinks(site, offsets: offsets, into: &links)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(HTTPEndpoints.calibrationJSON(site: site, links: links))) as? [String: Any])
    #expect(abs((json["absorption"] as? Double ?? 0) - 2.7) < 0.2, "\(json)")
    #expect(json["links"] as? Int == 12 && json["readings"] as? Int == 240)
    // The node-to-node matrix the map draws: every link heard, by node name.
    let matrix = try #require(json["matrix"] as? [[String: Any]])
    #expect(matrix.count == 12 && matrix.allSatisfy { ($0["from"] as? String) != ($0["to"] as? String) && ($0["count"] as? Int ?? 0) > 0 })
    let nodes = try #require(json["nodes"] as? [[String: Any]])
    for (node, offset) in zip(nodes, offsets) {
        #expect(abs((node["rx_adj"] as? Double ?? .nan) + offset) < 0.6, "\(node)")
        #expect(node["links_in"] as? Int == 3 && node["links_out"] as? Int == 3)
        #expect(node["calibrated"] as? Bool == true)
    }
}

private func modelLinks(_ site: Site, offsets: [Double], into links: inout NodeBeaconLinks, heard: (Int, Int) -> Bool = { _, _ in true }) {
    let model = PathLoss(exponent: 2.7)
    for from in 0..<4 {
        for to in 0..<4 where to != from && heard(from, to) {
            let a = site.nodes[from].point, b = site.nodes[to].point
            let d = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)).squareRoot()
            let rssi = model.rssi(distance: d, txRef: -59) + offsets[to]
            // Two readings either side of the model, so the median is the model to the dB.
            for k in 0..<20 { links.record(from: from, to: to, rssi: Int((rssi + (k % 2 == 0 ? 0.5 : -0.5)).rounded(.down)), tx: -59) }
        }
    }
}

/// A node hearing a single link is served as not calibrated, its rx_adj null, never a fitted 0 or an exact fit.
@Test func aNodeHearingOneLinkIsServedAsNotCalibrated() throws {
    var site = twoRoomSite()
    for i in site.nodes.indices { site.nodes[i].beacon = "mac:c2:00:00:00:00:0\(i)" }
    var links = NodeBeaconLinks(nodeCount: 4)
    modelLinks(site, offsets: [3.0, -1.0, -2.0, 7.0], into: &links) { from, to in to != 3 || from == 0 }
    let json = try #require(try JSONSerialization.jsonObject(with: Data(HTTPEndpoints.calibrationJSON(site: site, links: links))) as? [String: Any])
    let nodes = try #require(json["nodes"] as? [[String: Any]])
    #expect(nodes.map { $0["calibrated"] as? Bool } == [true, true, true, false], "\(json)")
    #expect(nodes[3]["rx_adj"] is NSNull && nodes[3]["links_in"] as? Int == 0 && nodes[3]["links_out"] as? Int == 3, "\(nodes[3])")
    #expect(json["links"] as? Int == 9)
}
