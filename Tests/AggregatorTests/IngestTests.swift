import Testing
import Wire
@testable import Aggregator

private func payload(node: String, seq: UInt64, t: Double, readings: [Reading] = [
    Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -60, t: 99.9, kind: .mac),
]) -> [UInt8] {
    var w = JSONWriter()
    Batch(node: node, seq: seq, t: t, readings: readings).encode(into: &w)
    return w.bytes
}

private extension Ingest {
    mutating func accept(_ topic: String, _ bytes: [UInt8], arrival: Double) -> Result<Batch, PayloadError> {
        bytes.withUnsafeBytes { accept(topic: topic, payload: $0, arrival: arrival) }
    }
}

@Test func acceptsKnownNodesAndCountsGaps() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen", "hall"])
    for seq: UInt64 in [1, 2, 5, 6] {
        _ = try ingest.accept("whereabouts/nodes/kitchen/readings", payload(node: "kitchen", seq: seq, t: 100 + Double(seq)),
                              arrival: 100.05 + Double(seq)).get()
    }
    let stream = try #require(ingest.nodes["kitchen"])
    #expect(stream.batches == 4)
    #expect(stream.missedBatches == 2)
    #expect(ingest.rejected.isEmpty)
}

@Test func refusesMismatchUnknownReplayAndGarbage() {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let topic = "whereabouts/nodes/kitchen/readings"
    #expect(throws: PayloadError.self) { try ingest.accept(topic, payload(node: "hall", seq: 1, t: 100), arrival: 100).get() }
    #expect(throws: PayloadError.self) {
        try ingest.accept("whereabouts/nodes/attic/readings", payload(node: "attic", seq: 1, t: 100), arrival: 100).get()
    }
    _ = ingest.accept(topic, payload(node: "kitchen", seq: 10, t: 100), arrival: 100)
    #expect(throws: PayloadError.self) { try ingest.accept(topic, payload(node: "kitchen", seq: 9, t: 99), arrival: 101).get() }
    #expect(throws: PayloadError.self) { try ingest.accept(topic, Array("{nope".utf8), arrival: 101).get() }
    #expect(ingest.rejected == [.nodeMismatch: 1, .unknownNode: 1, .replayed: 1, .malformed: 1])
}

@Test func aRestartedNodeIsNotAReplay() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let topic = "whereabouts/nodes/kitchen/readings"
    _ = try ingest.accept(topic, payload(node: "kitchen", seq: 500, t: 100), arrival: 100).get()
    _ = try ingest.accept(topic, payload(node: "kitchen", seq: 0, t: 130), arrival: 130).get()
    #expect(ingest.nodes["kitchen"]?.lastSeq == 0)
    #expect(ingest.rejected.isEmpty)
}

@Test func aNodeClockOffBySecondsIsCorrected() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let topic = "whereabouts/nodes/kitchen/readings"
    // The node's clock is 30 s slow; transit is 20 ms.
    let batch = try ingest.accept(topic, payload(node: "kitchen", seq: 1, t: 70, readings: [
        Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -60, t: 69.8, kind: .mac),
    ]), arrival: 100.02).get()
    #expect(abs(batch.readings[0].t - 99.82) < 1e-9)
    // A small offset is transit and is left alone.
    var other = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let kept = try other.accept(topic, payload(node: "kitchen", seq: 1, t: 100, readings: [
        Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -60, t: 99.8, kind: .mac),
    ]), arrival: 100.2).get()
    #expect(kept.readings[0].t == 99.8)
}
