import Testing
import Wire
import MQTT
import Positioning
@testable import Aggregator

// Batches decoded on the network thread (`PreparedBatch`, ids hashed there too) must lead to
// exactly what the work queue's own decoding leads to.

@Test func preparedBatchesGiveTheSameMessagesAsBatchesDecodedOnTheWorkQueue() {
    let topics = Topics()
    let plain = AggregatorCore(site: twoRoomSite(), topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: AggregatorMetrics())
    let prepared = AggregatorCore(site: twoRoomSite(), topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: AggregatorMetrics())
    let scratch = PrepareScratch()
    var a: [Effect] = [], b: [Effect] = []
    var published: (plain: [String], prepared: [String]) = ([], [])
    for step in 0..<60 {
        let t = 1000 + Double(step) * 0.25
        for (k, node) in ["a", "b", "c", "d"].enumerated() {
            // Twelve devices, one with an escaped id (decoded by the slow path on both sides).
            var readings = (0..<11).map { Reading(id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-\($0)", rssi: -60 - (($0 * 7 + k * 5 + step) % 17), t: t - 0.01, kind: .ibeacon) }
            readings.append(Reading(id: "mac:ü-\(k % 2)", rssi: -70, t: t - 0.01, kind: .mac))
            var w = JSONWriter(capacity: 4096)
            Batch(node: node, seq: UInt64(step + 1), t: t, readings: readings).encode(into: &w)
            let payload = w.bytes
            let batch = payload.withUnsafeBytes { PreparedBatch.prepare(topic: topics.nodeReadings(node), payload: $0, topics: topics, scratch: scratch) }
            #expect(batch?.readings.count == 12)
            #expect(batch?.needsPayload == false)
            batch?.ids.withUnsafeBytes { ids in
                for r in batch?.readings ?? [] where r.idIsPlain { #expect(r.idHash == Engine.idHash(r.idBytes(in: ids))) }
                #expect(batch?.readings.map { $0.id(in: ids) } == readings.map(\.id))
            }
            payload.withUnsafeBytes { raw in
                plain.handle(topic: topics.nodeReadings(node), payload: raw, arrival: t, into: &a)
                // The prepared batch alone: the payload is not copied out of libmosquitto for it.
                prepared.handle(topic: topics.nodeReadings(node), payload: UnsafeRawBufferPointer(start: nil, count: 0), prepared: batch, arrival: t, into: &b)
            }
        }
        for e in a { if case .state(let m, _) = e { published.plain.append(m.topic + " " + String(decoding: m.payload, as: UTF8.self)) } }
        for e in b { if case .state(let m, _) = e { published.prepared.append(m.topic + " " + String(decoding: m.payload, as: UTF8.self)) } }
        a.removeAll(); b.removeAll()
    }
    #expect(plain.engine.deviceCount == 13)
    #expect(prepared.engine.deviceCount == 13)
    #expect(!published.plain.isEmpty)
    #expect(published.plain == published.prepared)
}
