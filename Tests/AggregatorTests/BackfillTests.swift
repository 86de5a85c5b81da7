import Foundation
import Testing
import Wire
import MQTT
import Positioning
@testable import Aggregator

// A broker outage of 60 s while a device walks from the west room to the east one: the
// edges' backlogs arrive node after node once the broker is back. The backfill pass must
// give the same room events as the same readings heard without an outage.

private let nodes: [(name: String, x: Double, y: Double)] = [("a", 0.3, 0.3), ("b", 9.7, 0.3), ("c", 9.7, 3.7), ("d", 0.3, 3.7)]

/// West until 40 s, then a walk at 1 m/s to (8, 2), in the east room from about 43 s.
private func position(at t: Double) -> (x: Double, y: Double) {
    (t < 40 ? 2 : min(8, 2 + (t - 40)), 2)
}

private func rssi(_ node: (name: String, x: Double, y: Double), at t: Double) -> Int {
    let p = position(at: t)
    let d = max(0.5, ((p.x - node.x) * (p.x - node.x) + (p.y - node.y) * (p.y - node.y) + 0.25).squareRoot())
    return Int((-59 - 27 * log10(d)).rounded())
}

private let device = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"

private func batch(_ node: (name: String, x: Double, y: Double), seq: UInt64, t: Double) -> [UInt8] {
    var w = JSONWriter(capacity: 1024)
    let readings = (0..<4).map { i in
        let at = t - 0.75 + Double(i) * 0.25
        return Reading(id: device, rssi: rssi(node, at: at), t: at, kind: .ibeacon)
    }
    Batch(node: node.name, seq: seq, t: t, readings: readings).encode(into: &w)
    return w.bytes
}

private struct Run {
    let core: AggregatorCore
    let metrics = AggregatorMetrics()
    var effects: [Effect] = []
    var events: [(ZoneEvent, late: Bool)] = []
    var backfilledPoints: [Double] = [], livePoints: [Double] = []
    let topics = Topics()

    init(horizon: Double? = nil) {
        var site = twoRoomSite()
        if let horizon { site.positioning.backfillHorizon = horizon }
        core = AggregatorCore(site: site, topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: metrics,
                              log: { _ in })
    }

    mutating func deliver(_ node: (name: String, x: Double, y: Double), seq: UInt64, t: Double, arrival: Double) {
        let payload = batch(node, seq: seq, t: t)
        payload.withUnsafeBytes { core.handle(topic: topics.nodeReadings(node.name), payload: $0, arrival: arrival, into: &effects) }
        drain()
    }

    mutating func tick(_ wall: Double) {
        core.tick(wall: wall, into: &effects)
        drain()
    }

    mutating func drain() {
        for effect in effects {
            switch effect {
            case .event(let e, _): events.append((e, false))
            case .lateEvent(let e, let messages):
                events.append((e, true))
                #expect(messages.first.map { String(decoding: $0.payload, as: UTF8.self).contains(#""late":true"#) } == true)
            case .track(let u): livePoints.append(u.t)
            case .backfilledTrack(let u): backfilledPoints.append(u.t)
            default: break
            }
        }
        effects.removeAll()
    }

    var late: UInt64 { metrics.rejected(.late).current }
}

@Test func aBrokerOutageIsBackfilledToTheSameRoomEvents() throws {
    // Without an outage: every node's batch each second, in time order.
    var plain = Run()
    for s in 1...120 {
        for node in nodes { plain.deliver(node, seq: UInt64(s), t: Double(s), arrival: Double(s) + 0.05) }
        plain.tick(Double(s) + 0.5)
    }

    // The broker away from 20.5 s to 80.5 s: the aggregator hears nothing, the edges keep
    // their batches and deliver them once it is back, one node after the other.
    var outage = Run()
    for s in 1...20 {
        for node in nodes { outage.deliver(node, seq: UInt64(s), t: Double(s), arrival: Double(s) + 0.05) }
        outage.tick(Double(s) + 0.5)
    }
    outage.core.brokerLost(wall: 20.5, into: &outage.effects)
    for s in 21...80 { outage.tick(Double(s) + 0.5) }
    #expect(outage.events.count == plain.events.filter { $0.0.t < 20.5 }.count, "no event while the broker is away")
    outage.core.brokerBack(wall: 80.5)
    for node in nodes {
        for s in 21...80 { outage.deliver(node, seq: UInt64(s), t: Double(s), arrival: 80.6 + Double(s) * 0.001) }
    }
    for s in 81...120 {
        for node in nodes { outage.deliver(node, seq: UInt64(s), t: Double(s), arrival: Double(s) + 0.05) }
        outage.tick(Double(s) + 0.5)
    }

    #expect(outage.late == 0)
    for node in nodes { #expect(outage.metrics.readings(node.name).current == plain.metrics.readings(node.name).current, "\(node.name)") }
    let expected = plain.events.map { "\($0.0.type) \($0.0.zone)" }
    #expect(expected == ["enter west", "exit west", "enter east"])
    #expect(outage.events.map { "\($0.0.type) \($0.0.zone)" } == expected)
    for (a, b) in zip(plain.events, outage.events) { #expect(abs(a.0.t - b.0.t) <= 1, "\(a.0) vs \(b.0)") }
    // The room change fell in the gap: it was solved by the pass, and published late.
    #expect(outage.events.map(\.late) == [false, true, true])
    // The gap's track as dense as without the outage (a still device's held fixes make none).
    let usual = plain.livePoints.filter { $0 > 21 && $0 < 80 }.count
    let filled = outage.backfilledPoints.filter { $0 > 21 && $0 < 80 }.count
    #expect(usual > 20 && Double(filled) >= 0.8 * Double(usual), "\(filled) points in the gap, \(usual) without the outage")
    #expect(outage.livePoints.allSatisfy { $0 < 20.5 || $0 > 80 }, "the live engine made none in the gap")
    #expect(outage.metrics.registry.render().contains("whereabouts_backfill_passes_total 1"))
}

@Test func readingsOlderThanTheHorizonAreLateAsBefore() throws {
    var run = Run(horizon: 30)
    for s in 1...20 {
        for node in nodes { run.deliver(node, seq: UInt64(s), t: Double(s), arrival: Double(s) + 0.05) }
        run.tick(Double(s) + 0.5)
    }
    run.core.brokerLost(wall: 20.5, into: &run.effects)
    run.core.brokerBack(wall: 80.5)
    for node in nodes {
        for s in 21...80 { run.deliver(node, seq: UInt64(s), t: Double(s), arrival: 80.6) }
    }
    // The gap ends at 80.45 s (the last reading, 20 s, arrived at 20.05 s): readings before
    // 50.45 s are past the horizon, 121 of each node's 240.
    #expect(run.late == 4 * 121)
    #expect(run.metrics.registry.render().contains("whereabouts_backfill_readings_total \(4 * 119)"))
}
