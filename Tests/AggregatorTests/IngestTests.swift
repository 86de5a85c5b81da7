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
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: 10, t: 100), arrival: 101) == .replayed)
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
    #expect(after.lastSeq == before.lastSeq && after.clockOffset == before.clockOffset && after.batches == before.batches)
    #expect(after.refusedAhead.map { abs($0 - 3599.9) < 1e-6 } == true)
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
    var fresh = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    #expect(fresh.refusal(topic, payload(node: "kitchen", seq: 2, t: 100 + Ingest.maxAhead + 0.5), arrival: 100) == .clockAhead)
    // The bound counts from the node's known clock error: that node is 59.5 s ahead already.
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: 2, t: 100.25 + Ingest.maxAhead + 0.5), arrival: 100.25) == nil)
    #expect(ingest.refusal(topic, payload(node: "kitchen", seq: 3, t: 100.5 + 3 * Ingest.maxAhead), arrival: 100.5) == .clockAhead)
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

// Found by the review of the sequence window: replays were judged by time ("seq <= last and
// t <= last batch time"), so one forged batch far ahead in arrival mode, or an edge rebooting
// with its clock behind, made the node's next batches `replayed`. A replay is now exactly a
// batch accepted already.

private let kitchen = "whereabouts/nodes/kitchen/readings"

/// Feeds `count` live batches from `seq` on, 4 a second from `arrival`, each stamped
/// `clockError` from its arrival; returns how many were refused, by reason.
private func live(_ ingest: inout Ingest, seq: UInt64, count: Int, arrival: Double, clockError: Double = 0) -> [RejectReason: Int] {
    var refused: [RejectReason: Int] = [:]
    for k in 0..<count {
        let at = arrival + Double(k) * 0.25
        if let why = ingest.refusal(kitchen, payload(node: "kitchen", seq: seq + UInt64(k), t: at - 0.02 + clockError), arrival: at) {
            refused[why, default: 0] += 1
        }
    }
    return refused
}

@Test func inArrivalModeOneForgedBatchFarAheadMakesNoLaterBatchAReplay() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"], clockMode: .arrival)
    #expect(live(&ingest, seq: 100, count: 8, arrival: 1000).isEmpty)
    #expect(ingest.refusal(kitchen, payload(node: "kitchen", seq: 100 + 50_000, t: 1002 + 3600), arrival: 1002) == nil)
    #expect(live(&ingest, seq: 108, count: 40, arrival: 1002.25).isEmpty)
    // Its copy delivered again is still a replay.
    #expect(ingest.refusal(kitchen, payload(node: "kitchen", seq: 50_100, t: 4602), arrival: 1020) == .replayed)
}

@Test(arguments: [Ingest.ClockMode.node, .arrival])
func anEdgeRebootingWithItsClockBehindIsNotAReplay(mode: Ingest.ClockMode) throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"], clockMode: mode)
    #expect(live(&ingest, seq: 5000, count: 40, arrival: 1000).isEmpty)
    // Rebooted before NTP: seq from 1 again, its clock 2 minutes behind (older times than before).
    #expect(live(&ingest, seq: 1, count: 400, arrival: 1015, clockError: -120).isEmpty)
    #expect(ingest.nodes["kitchen"]?.lastSeq == 400)
    #expect(ingest.nodes["kitchen"]?.missedBatches == 0)
}

@Test func aReplayIsTheSameSeqAndTimeAsABatchAcceptedWithinTheLastRecentBatches() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let n = Ingest.recentBatches
    #expect(live(&ingest, seq: 1, count: n + 1, arrival: 1000).isEmpty)
    let t = { (seq: UInt64) in 1000 + Double(seq - 1) * 0.25 - 0.02 }
    // The oldest one remembered is a replay; the same seq with another time is not.
    #expect(ingest.refusal(kitchen, payload(node: "kitchen", seq: 2, t: t(2)), arrival: 1020) == .replayed)
    #expect(ingest.refusal(kitchen, payload(node: "kitchen", seq: UInt64(n + 1), t: t(UInt64(n + 1)) + 0.001), arrival: 1020) == nil)
    // One further back is forgotten: accepted once more.
    #expect(ingest.refusal(kitchen, payload(node: "kitchen", seq: 1, t: t(1)), arrival: 1020) == nil)
}

// Found by the same review: a node more than 60 s ahead was refused for good (61 s ahead:
// 400/400 `clock_ahead`), as was every node when the aggregator's own clock was behind.

@Test(arguments: [61.0, 3600.0])
func aNodeClockAheadIsRefusedForOneWindowThenCorrected(ahead: Double) throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    #expect(live(&ingest, seq: 1, count: 8, arrival: 1000).isEmpty)
    let refused = live(&ingest, seq: 9, count: 400, arrival: 1002, clockError: ahead)
    // The first clock window's batches (5 s, 20 batches) and no more.
    #expect(refused == [.clockAhead: Int(Ingest.clockWindow / 0.25)])
    #expect(ingest.nodes["kitchen"].map { abs($0.clockOffset! + ahead - 0.02) < 1e-6 } == true)
    let batch = try ingest.accept(kitchen, payload(node: "kitchen", seq: 409, t: 1102 + ahead, readings: [
        Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -60, t: 1102 + ahead - 0.1, kind: .mac),
    ]), arrival: 1102.02).get()
    #expect(abs(batch.readings[0].t - 1101.92) < 1e-6)
}

@Test func isolatedBatchesFromTheFutureAmongLiveOnesAreRefusedEveryTime() {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    var seq: UInt64 = 1, refused = 0
    for second in 0..<60 {
        let at = 1000 + Double(second)
        #expect(live(&ingest, seq: seq, count: 3, arrival: at).isEmpty)
        seq += 3
        if ingest.refusal(kitchen, payload(node: "kitchen", seq: seq, t: at + 3600), arrival: at + 0.8) == .clockAhead { refused += 1 }
        seq += 1
    }
    #expect(refused == 60)
    #expect(ingest.nodes["kitchen"].map { abs($0.clockOffset!) < 0.1 } == true)
}

@Test func theAggregatorsClockBehindIsCorrectedForEveryNode() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen", "hall"])
    var refused = 0
    for k in 0..<80 {
        let at = 1000 + Double(k) * 0.25
        for node in ["kitchen", "hall"] {
            // Every node's clock reads 2 minutes after this server's.
            if ingest.refusal("whereabouts/nodes/\(node)/readings", payload(node: node, seq: UInt64(k + 1), t: at + 120), arrival: at + 0.02) != nil {
                refused += 1
            }
        }
    }
    #expect(refused == 2 * Int(Ingest.clockWindow / 0.25))
    for node in ["kitchen", "hall"] { #expect(ingest.nodes[node].map { abs($0.clockOffset! + 119.98) < 1e-6 } == true) }
}
