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
            // Twelve devices, one with an escaped id (a quote: decoded by the slow path on both sides).
            var readings = (0..<11).map { Reading(id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-\($0)", rssi: -60 - (($0 * 7 + k * 5 + step) % 17), t: t - 0.01, kind: .ibeacon) }
            readings.append(Reading(id: "mac:\"-\(k % 2)", rssi: -70, t: t - 0.01, kind: .mac))
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

/// A site node's name spelt in `%XX` escapes names the same node (its batches are taken), but
/// only the node's own spelling of its topic is cached: every other spelling is parsed again,
/// so that nobody can grow the cache by publishing escapes without end.
@Test func escapedSpellingsOfANodesTopicAreTakenButNotCached() {
    let topics = Topics()
    let metrics = AggregatorMetrics()
    let core = AggregatorCore(site: twoRoomSite(), topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: metrics)
    let scratch = PrepareScratch()
    var effects: [Effect] = []
    let spellings = [("whereabouts/nodes/a/readings", "a"), ("whereabouts/nodes/%61/readings", "a"), ("whereabouts/nodes/%61/readings", "a"),
                     (topics.nodeReadings("b"), "b"), ("whereabouts/nodes/%62/readings", "b"), ("whereabouts/nodes/%62/readings", "b")]
    for (k, (topic, node)) in spellings.enumerated() {
        let t = 1000 + Double(k) * 0.25
        var w = JSONWriter(capacity: 1024)
        Batch(node: node, seq: UInt64(k + 1), t: t, readings: [Reading(id: "mac:02:00:00:00:00:\(k)", rssi: -60, t: t - 0.01, kind: .mac)]).encode(into: &w)
        let payload = w.bytes
        let batch = payload.withUnsafeBytes { PreparedBatch.prepare(topic: topic, payload: $0, topics: topics, scratch: scratch) }
        #expect(batch != nil, "\(topic)")
        payload.withUnsafeBytes { core.handle(topic: topic, payload: $0, prepared: batch, arrival: t, into: &effects) }
    }
    #expect(core.engine.deviceCount == spellings.count)
    #expect(core.cachedReadingsTopics == 2)
}
