import Testing
import Wire
@testable import Aggregator

// Found by the fault test `nodeClockOffBySecondsAreCorrectedAndCostNoReadings`: one node's
// clock stepping 30 s forward pushed event time ahead of the wall clock, and every node's
// readings were refused as late for as long.

private let topic = "whereabouts/nodes/kitchen/readings"

private func batch(seq: UInt64, t: Double, readingAt: Double? = nil) -> [UInt8] {
    var w = JSONWriter()
    Batch(node: "kitchen", seq: seq, t: t, readings: [Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -60, t: readingAt ?? t - 0.1, kind: .mac)])
        .encode(into: &w)
    return w.bytes
}

private func accept(_ ingest: inout Ingest, _ bytes: [UInt8], arrival: Double, bad: inout Int) throws -> Batch {
    try bytes.withUnsafeBytes { ingest.accept(topic: topic, payload: $0, arrival: arrival, badReadings: &bad) }.get()
}

@Test func aClockSteppingForwardNeverPutsReadingsAfterTheirArrival() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    var bad = 0
    var seq: UInt64 = 0
    for i in 0..<40 {
        let arrival = 1000 + Double(i) * 0.25
        let clockError = i < 20 ? 0.0 : 30.0   // the node's clock steps 30 s ahead halfway
        seq += 1
        let b = try accept(&ingest, batch(seq: seq, t: arrival - 0.02 + clockError), arrival: arrival, bad: &bad)
        #expect(b.readings[0].t <= arrival, "batch \(i): reading at \(b.readings[0].t), arrived \(arrival)")
        #expect(abs(b.readings[0].t - (arrival - 0.12)) < 1.05, "batch \(i): reading at \(b.readings[0].t)")
    }
    #expect(bad == 0)
}

@Test func batchesHeldUpByAnOutageDoNotShiftTheLiveOnes() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    var bad = 0
    // Live, then 40 batches from a minute ago delivered at once, then live again.
    _ = try accept(&ingest, batch(seq: 1, t: 999.98), arrival: 1000, bad: &bad)
    for k in 0..<40 { _ = try accept(&ingest, batch(seq: 2 + UInt64(k), t: 940 + Double(k) * 0.25), arrival: 1001, bad: &bad) }
    let live = try accept(&ingest, batch(seq: 42, t: 1001.48), arrival: 1001.5, bad: &bad)
    #expect(live.readings[0].t == 1001.38)
}

@Test func aReadingStampedAfterItsBatchIsRefusedAndCounted() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    var bad = 0
    let b = try accept(&ingest, batch(seq: 1, t: 1000, readingAt: 1e300), arrival: 1000.01, bad: &bad)
    #expect(b.readings.isEmpty)
    #expect(bad == 1)
    let next = try accept(&ingest, batch(seq: 2, t: 1000.25), arrival: 1000.26, bad: &bad)
    #expect(next.readings.count == 1 && bad == 1)
}

@Test func aBacklogAfterASilenceIsNotTakenForAClockBehind() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    var bad = 0
    // Live, then nothing for a minute (the broker away), then the edge's backlog of that
    // minute delivered at once, oldest first: its times are kept, not moved to the arrival.
    _ = try accept(&ingest, batch(seq: 1, t: 999.98), arrival: 1000, bad: &bad)
    for k in 0..<40 {
        let b = try accept(&ingest, batch(seq: 2 + UInt64(k), t: 1001 + Double(k) * 1.5), arrival: 1061, bad: &bad)
        #expect(b.readings[0].t == 1001 + Double(k) * 1.5 - 0.1, "batch \(k)")
    }
}
