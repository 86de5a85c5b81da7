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
        var bad = 0
        return bytes.withUnsafeBytes { accept(topic: topic, payload: $0, arrival: arrival, badReadings: &bad) }
    }

    /// The reason a payload is refused, or nil when accepted.
    mutating func refusal(_ topic: String, _ bytes: [UInt8], arrival: Double) -> RejectReason? {
        if case .failure(let e) = accept(topic, bytes, arrival: arrival) { return e.reason }
        return nil
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
}

@Test func refusesMismatchUnknownReplayAndGarbage() {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let topic = "whereabouts/nodes/kitchen/readings"
    #expect(ingest.refusal(topic, payload(node: "hall", seq: 1, t: 100), arrival: 100) == .nodeMismatch)
    #expect(ingest.refusal("whereabouts/nodes/attic/readings", payload(node: "attic", seq: 1, t: 100), arrival: 100) == .unknownNode)
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: 10, t: 100), arrival: 100) == nil)
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: 9, t: 99), arrival: 101) == .replayed)
    #expect(ingest.refusal(topic, Array("{nope".utf8), arrival: 101) == .malformed)
    #expect(ingest.refusal("whereabouts/nodes/kitchen/status", payload(node: "kitchen", seq: 11, t: 101), arrival: 101) == .malformed)
}

@Test func badReadingsAreCountedNotFatal() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let text = #"{"v":1,"node":"kitchen","seq":1,"t":100,"readings":[{"id":"a","rssi":-50,"t":99,"kind":"mac"},{"id":"b","rssi":500,"t":99,"kind":"mac"}]}"#
    var bad = 0
    let batch = try Array(text.utf8).withUnsafeBytes {
        ingest.accept(topic: "whereabouts/nodes/kitchen/readings", payload: $0, arrival: 100, badReadings: &bad)
    }.get()
    #expect(batch.readings.map(\.id) == ["a"])
    #expect(bad == 1)
}

@Test func aRestartedNodeIsNotAReplay() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let topic = "whereabouts/nodes/kitchen/readings"
    _ = try ingest.accept(topic, payload(node: "kitchen", seq: 500, t: 100), arrival: 100).get()
    _ = try ingest.accept(topic, payload(node: "kitchen", seq: 0, t: 130), arrival: 130).get()
    #expect(ingest.nodes["kitchen"]?.lastSeq == 0)
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

// Found by the production audit: one batch with a huge `seq` and a time an hour ahead made
// every later batch of its node `replayed` (until that hour passed, or a restart), and its
// clock sample put the node's next readings an hour back (`late`).

@Test func aBatchFromTheFutureIsRefusedBeforeItTouchesTheNode() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let topic = "whereabouts/nodes/kitchen/readings"
    _ = try ingest.accept(topic, payload(node: "kitchen", seq: 115, t: 99.98), arrival: 100).get()
    let before = try #require(ingest.nodes["kitchen"])
    let hostile = payload(node: "kitchen", seq: 1_000_000_000_000_000, t: 3700,
                          readings: [Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -55, t: 3700, kind: .mac)])
    #expect(ingest.refusal(topic, hostile, arrival: 100.1) == .clockAhead)
    let after = try #require(ingest.nodes["kitchen"])
    #expect(after.lastSeq == before.lastSeq && after.lastBatchTime == before.lastBatchTime && after.batches == before.batches)
    // The node's next batches are accepted, at their own time.
    for k in 1...8 {
        let t = 100 + Double(k) * 0.25
        let batch = try ingest.accept(topic, payload(node: "kitchen", seq: 115 + UInt64(k), t: t - 0.02, readings: [
            Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -60, t: t - 0.1, kind: .mac),
        ]), arrival: t).get()
        #expect(batch.readings[0].t == t - 0.1)
    }
    #expect(ingest.nodes["kitchen"]?.missedBatches == 0)
}

@Test func aBatchAheadWithinTheBoundIsFollowedAndOnlyJustPastTheBoundRefused() {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let topic = "whereabouts/nodes/kitchen/readings"
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: 1, t: 100 + Ingest.maxAhead - 0.5), arrival: 100) == nil)
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: 2, t: 100 + Ingest.maxAhead + 0.5), arrival: 100) == .clockAhead)
    // In arrival mode the node's clock is not used: its batch times are not judged either.
    var arrival = Ingest(topics: Topics(), knownNodes: ["kitchen"], clockMode: .arrival)
    #expect(arrival.refusal(topic, payload(node: "kitchen", seq: 1, t: 3700), arrival: 100) == nil)
}

@Test func aSeqFarFromTheLastStartsANewSequenceNeitherReplayNorGap() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let topic = "whereabouts/nodes/kitchen/readings"
    _ = try ingest.accept(topic, payload(node: "kitchen", seq: 115, t: 100), arrival: 100).get()
    // A huge seq with a time a little ahead (within the bound): accepted, and no gap of 1e15 lost batches.
    _ = try ingest.accept(topic, payload(node: "kitchen", seq: 1_000_000_000_000_000, t: 130), arrival: 100.25).get()
    #expect(ingest.nodes["kitchen"]?.missedBatches == 0)
    // The node's own next batch, older in time than that one: a new sequence, not a replay.
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: 116, t: 100.5), arrival: 100.5) == nil)
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: 117, t: 100.75), arrival: 100.75) == nil)
    // An edge restarted then: seq 1, accepted likewise.
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: 1, t: 101), arrival: 101) == nil)
    #expect(ingest.nodes["kitchen"]?.lastSeq == 1)
    #expect(ingest.nodes["kitchen"]?.missedBatches == 0)
}

@Test(arguments: [(seq: UInt64(117), t: 100.5), (seq: 116, t: 100.25), (seq: 100, t: 96.25)])
func aBatchDeliveredAgainIsStillAReplay(seq: UInt64, t: Double) throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let topic = "whereabouts/nodes/kitchen/readings"
    for s: UInt64 in 100...117 { _ = try ingest.accept(topic, payload(node: "kitchen", seq: s, t: 96.25 + Double(s - 100) * 0.25), arrival: 101).get() }
    // QoS 1 redelivery or a queued copy: a seq seen, with its own (not newer) time.
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: seq, t: t), arrival: 102) == .replayed)
}
