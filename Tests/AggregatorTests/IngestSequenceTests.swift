import Synchronization
import Testing
import Wire
@testable import Aggregator

// Found by the review of the exact replay rule: a lower seq was accepted and moved the node's
// last seq back, so a reordered batch counted its gap twice (9, 11, 10, 12: 2 missed, none
// lost) and two edges with one node name were accepted, mixed and counted ~2 million missed
// batches in 400 each, with nothing logged.

private let kitchen = "whereabouts/nodes/kitchen/readings"

private func batch(_ node: String = "kitchen", seq: UInt64, t: Double) -> [UInt8] {
    var w = JSONWriter()
    Batch(node: node, seq: seq, t: t, readings: [Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -60, t: t - 0.1, kind: .mac)]).encode(into: &w)
    return w.bytes
}

private extension Ingest {
    /// The reason a batch is refused, or nil when accepted.
    mutating func refusal(_ bytes: [UInt8], arrival: Double) -> RejectReason? {
        var bad = 0
        let result = bytes.withUnsafeBytes { accept(topic: kitchen, payload: $0, arrival: arrival, badReadings: &bad) }
        if case .failure(let e) = result { return e.reason }
        return nil
    }
}

@Test func aReorderedBatchFillsTheGapItMadeAndLeavesTheLastSeq() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    // Sent 9, 10, 11, 12 every 0.25 s; 10 overtaken by 11 on the way.
    for (seq, sent) in [(UInt64(9), 100.0), (11, 100.5), (10, 100.25), (12, 100.75)] {
        #expect(ingest.refusal(batch(seq: seq, t: sent), arrival: 100.8 + sent / 1000) == nil)
        if seq == 11 { #expect(ingest.nodes["kitchen"]?.missedBatches == 1) }
        if seq == 10 { #expect(ingest.nodes["kitchen"]?.lastSeq == 11) }
    }
    let stream = try #require(ingest.nodes["kitchen"])
    #expect(stream.missedBatches == 0)
    #expect(stream.lastSeq == 12)
    #expect(stream.restarts == 0)
    #expect(ingest.notice == nil)
    // A batch really lost stays counted: 14 without 13.
    #expect(ingest.refusal(batch(seq: 14, t: 101.25), arrival: 101.3) == nil)
    #expect(ingest.nodes["kitchen"]?.missedBatches == 1)
}

@Test func aLowerSeqWithANewerTimeIsARestartNoticedOnce() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    for seq: UInt64 in 40...50 { #expect(ingest.refusal(batch(seq: seq, t: 100 + Double(seq) * 0.25), arrival: 120 + Double(seq) * 0.25) == nil) }
    // The edge restarted 30 s later: seq from 1, with newer times, so not late.
    #expect(ingest.refusal(batch(seq: 1, t: 160), arrival: 160.02) == nil)
    #expect(ingest.notice == .restarted(from: 50, to: 1))
    #expect(ingest.refusal(batch(seq: 2, t: 160.25), arrival: 160.27) == nil)
    #expect(ingest.notice == nil)
    let stream = try #require(ingest.nodes["kitchen"])
    #expect(stream.lastSeq == 2)
    #expect(stream.restarts == 1)
    #expect(stream.missedBatches == 0)
    // A lower seq further back than the ring with an older time is a restart too (not late).
    #expect(ingest.refusal(batch(seq: 1000, t: 161), arrival: 161.02) == nil)
    #expect(ingest.refusal(batch(seq: 900, t: 160.5), arrival: 161.2) == nil)
    #expect(ingest.nodes["kitchen"]?.lastSeq == 900)
    #expect(ingest.nodes["kitchen"]?.restarts == 2)
}

@Test func twoEdgesSharingANodeNameAreWarnedOfAndCountNoGapsBetweenTheirSequences() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    var notices: [Ingest.StreamNotice] = []
    // Edge A has run for days (seq near 1000), edge B just started: 400 batches each, interleaved.
    for k in 0..<400 {
        let at = 1000 + Double(k) * 0.25
        for seq in [UInt64(1000 + k), UInt64(10 + k)] {
            #expect(ingest.refusal(batch(seq: seq, t: at), arrival: at + 0.02) == nil)
            if let notice = ingest.notice { notices.append(notice) }
        }
    }
    #expect(notices == [.restarted(from: 1000, to: 10), .sharedName(restarts: Ingest.restartsPerMinute + 1)])
    let stream = try #require(ingest.nodes["kitchen"])
    #expect(stream.missedBatches == 0)
    #expect(stream.restarts == 799)
}

@Test func theRingOfRecentBatchesWrapsAndForgetsTheSixtyFifthBack() throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    let n = Ingest.recentBatches, total = UInt64(3 * n + 5)
    let t = { (seq: UInt64) in 1000 + Double(seq) * 0.25 }
    for seq in 1...total { #expect(ingest.refusal(batch(seq: seq, t: t(seq)), arrival: t(seq) + 0.02) == nil) }
    for seq in (total - UInt64(n) + 1)...total {
        #expect(ingest.refusal(batch(seq: seq, t: t(seq)), arrival: t(total) + 1) == .replayed, "seq \(seq)")
    }
    let forgotten = total - UInt64(n)
    #expect(ingest.refusal(batch(seq: forgotten, t: t(forgotten)), arrival: t(total) + 1) == nil)
}

private final class Lines: Sendable {
    let all = Mutex<[String]>([])
    func append(_ line: String) { all.withLock { $0.append(line) } }
}

@Test func theAggregatorLogsTheFirstRestartAndASharedNameOnce() {
    let lines = Lines(), topics = Topics()
    let core = AggregatorCore(site: twoRoomSite(), topics: topics, locator: .default, dialects: [], clockMode: .node,
                              metrics: AggregatorMetrics(), log: lines.append)
    var effects: [Effect] = []
    for k in 0..<20 {
        let at = 1000 + Double(k) * 0.25
        for seq in [UInt64(500 + k), UInt64(1 + k)] {
            batch("a", seq: seq, t: at).withUnsafeBytes { core.handle(topic: topics.nodeReadings("a"), payload: $0, arrival: at + 0.02, into: &effects) }
        }
    }
    let logged = lines.all.withLock { $0 }
    #expect(logged.count == 2, "\(logged)")
    #expect(logged.first?.contains("node a's seq went back from 500 to 1: an edge restarted") == true)
    #expect(logged.last?.contains("two edges likely share the node name") == true)
}

@Test func aNodeNameWithControlCharactersIsLoggedEscaped() {
    let lines = Lines(), topics = Topics()
    let core = AggregatorCore(site: twoRoomSite(), topics: topics, locator: .default, dialects: [], clockMode: .node,
                              metrics: AggregatorMetrics(), log: lines.append)
    var effects: [Effect] = []
    let forged = "x\nwhereabouts-aggregator: all fine\u{1b}[2J"
    batch(forged, seq: 1, t: 1000).withUnsafeBytes { core.handle(topic: topics.nodeReadings(forged), payload: $0, arrival: 1000, into: &effects) }
    let logged = lines.all.withLock { $0 }
    #expect(logged.count == 1)
    #expect(logged.allSatisfy { !$0.contains("\n") && !$0.contains("\u{1b}") })
    #expect(logged.first?.contains(#"x\u{a}whereabouts-aggregator: all fine\u{1b}[2J"#) == true)
}

// Found by the same review: the bound for `clock_ahead` was measured from a clock estimate
// forgotten after two clock windows of silence, and a run ahead restarted after any gap over
// 5 s, so a node 61 s ahead sending every 6 s was refused 200/200 forever, and one sending 4/s
// was refused again for 5 s after every silence of 5.1 s.

@Test(arguments: [(ahead: 61.0, every: 6.0), (3600, 5.5), (61, 60)])
func aNodeAheadSendingSeldomIsAcceptedAfterARun(ahead: Double, every: Double) throws {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    var refused = 0
    for k in 0..<200 {
        let at = 1000 + Double(k) * every
        if ingest.refusal(batch(seq: UInt64(k + 1), t: at + ahead), arrival: at + 0.02) != nil { refused += 1 }
    }
    #expect(refused == Ingest.runBatches - 1)
    #expect(ingest.nodes["kitchen"].map { abs($0.clockOffset! + ahead - 0.02) < 1e-6 } == true)
}

@Test func aSilenceAfterACorrectionRefusesNothingNew() {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    var refused = 0, seq: UInt64 = 1
    for minute in 0..<5 {
        // 4 a second for 54 s, then silent for 6 s.
        for k in 0..<216 {
            let at = 1000 + Double(minute) * 60 + Double(k) * 0.25
            if ingest.refusal(batch(seq: seq, t: at + 61), arrival: at + 0.02) != nil { refused += 1 }
            seq += 1
        }
    }
    // Only the first run, before the clock was known.
    #expect(refused == Int(Ingest.clockWindow / 0.25))
}

@Test func aRunAheadWhoseBatchesDisagreeIsNotTrusted() {
    var ingest = Ingest(topics: Topics(), knownNodes: ["kitchen"])
    var refused = 0
    for k in 0..<40 {
        let at = 1000 + Double(k) * 0.25
        // Forged batches 100 s to 3600 s ahead, never within 5 s of each other in turn.
        let ahead = k.isMultiple(of: 2) ? 100.0 : 3600.0
        if ingest.refusal(batch(seq: UInt64(k + 1), t: at + ahead), arrival: at + 0.02) == .clockAhead { refused += 1 }
    }
    #expect(refused == 40)
}
