import Testing
import Wire
import SiteModel
import YAML

/// A valid one-floor site; each case below breaks one line of it.
private let base = [
    "floors:",                                                                   // 1
    "  - id: ground",                                                            // 2
    "    bounds: [[0, 0, 0], [10, 8, 3]]",                                       // 3
    "    rooms:",                                                                // 4
    "      - { id: living, name: Living, points: [[0,0],[5,0],[5,8],[0,8]] }",   // 5
    "      - { id: kitchen, name: Kitchen, points: [[5,0],[10,0],[10,8],[5,8]] }", // 6
    "    doors: [ { between: [living, kitchen], at: [5, 4] } ]",                // 7
    "zones:",                                                                    // 8
    "  - { id: sofa, floor: ground, points: [[0,0],[1,0],[1,1],[0,1]] }",       // 9
    "nodes:",                                                                    // 10
    "  - { name: a, point: [1, 1, 1], floors: [ground] }",                      // 11
    "  - { name: b, point: [9, 1, 1] }",                                         // 12
    "irks: [ { id: phone, key: \"0123456789abcdef0123456789abcdef\" } ]",        // 13
    "positioning: { window: 3s }",                                               // 14
    "mqtt: { port: 1883 }",                                                      // 15
]

private func replacing(_ line: Int, with text: String) -> String {
    var lines = base
    lines[line - 1] = text
    return lines.joined(separator: "\n")
}

@Test func theBaseSiteIsClean() {
    #expect(Site.load(yaml: base.joined(separator: "\n")).problems.isEmpty)
}

struct BrokenLine: Sendable, CustomTestStringConvertible {
    let line: Int, text: String, key: String, says: String
    var severity: SiteProblem.Severity = .error
    /// Rewrites the doors line too, when the case would otherwise also break the door.
    var doors: String?
    /// A missing key is reported where its mapping starts.
    var reportedAt: Int?
    var testDescription: String { says }
}

@Test(arguments: [
    BrokenLine(line: 6, text: "      - { id: living, name: Kitchen, points: [[5,0],[10,0],[10,8],[5,8]] }",
               key: "floors[0].rooms[1].id", says: "duplicate room id 'living'", doors: "    doors: []"),
    BrokenLine(line: 9, text: "  - { id: kitchen, floor: ground, points: [[0,0],[1,0],[1,1],[0,1]] }",
               key: "zones[0].id", says: "duplicate zone id 'kitchen'"),
    BrokenLine(line: 7, text: "    doors: [ { between: [living, garage], at: [5, 4] } ]",
               key: "floors[0].doors[0].between", says: "no room 'garage'"),
    BrokenLine(line: 9, text: "  - { id: sofa, floor: attic, points: [[0,0],[1,0],[1,1],[0,1]] }",
               key: "zones[0].floor", says: "unknown floor 'attic'"),
    BrokenLine(line: 11, text: "  - { name: a, point: [1, 1, 1], floors: [cellar] }",
               key: "nodes[0].floors", says: "unknown floor 'cellar'"),
    BrokenLine(line: 5, text: "      - { id: living, name: Living, points: [[0,0],[5,0]] }",
               key: "floors[0].rooms[0].points", says: "needs at least 3 points"),
    BrokenLine(line: 5, text: "      - { id: living, name: Living, points: [[0,0],[5,8],[5,0],[0,8]] }",
               key: "floors[0].rooms[0].points", says: "crosses itself"),
    BrokenLine(line: 5, text: "      - { id: living, name: Living, points: [[0,0],[2,2],[4,4]] }",
               key: "floors[0].rooms[0].points", says: "has no area"),
    BrokenLine(line: 11, text: "  - { name: a, point: [1, one, 1], floors: [ground] }",
               key: "nodes[0].point[1]", says: "expects a number, got 'one'"),
    BrokenLine(line: 11, text: "  - { name: a, point: [1, 1], floors: [ground] }",
               key: "nodes[0].point", says: "expects [x, y, z]"),
    BrokenLine(line: 12, text: "  - { name: b, point: [19, 1, 1] }",
               key: "nodes[1].point", says: "outside the bounds of every floor", severity: .warning),
    BrokenLine(line: 13, text: "irks: [ { id: phone, key: \"0123456789abcdef0123456789abcdeg\" } ]",
               key: "irks[0].key", says: "expects 32 hex digits"),
    BrokenLine(line: 13, text: "irks: [ { id: phone, key: \"0123\" } ]",
               key: "irks[0].key", says: "expects 32 hex digits"),
    BrokenLine(line: 3, text: "    bounds: [[10, 0, 0], [0, 8, 3]]",
               key: "floors[0].bounds", says: "first corner must be below the second"),
    BrokenLine(line: 14, text: "positioning: { window: 3 fortnights }",
               key: "positioning.window", says: "expects a positive duration"),
    BrokenLine(line: 14, text: "positioning: { window: 3s, state_deadband: -0.1 }",
               key: "positioning.state_deadband", says: "-0.1 is outside 0...100"),
    BrokenLine(line: 14, text: "positioning: { window: 3s, state_deadband: far }",
               key: "positioning.state_deadband", says: "expects a number"),
    BrokenLine(line: 14, text: "positioning: { window: 3s, state_heartbeat: -10s }",
               key: "positioning.state_heartbeat", says: "expects 0 or a positive duration"),
    BrokenLine(line: 14, text: "positioning: { window: 3s, state_heartbeat: often }",
               key: "positioning.state_heartbeat", says: "expects 0 or a positive duration"),
    // Finite as written, infinite once scaled to seconds.
    BrokenLine(line: 14, text: "positioning: { window: 3s, state_heartbeat: 1e305d }",
               key: "positioning.state_heartbeat", says: "expects 0 or a positive duration"),
    BrokenLine(line: 15, text: "mqtt: { port: 70000 }",
               key: "mqtt.port", says: "expects a whole number in 1...65535"),
    BrokenLine(line: 15, text: "mqtt: { port: 1883, port: 1884 }",
               key: "mqtt.port", says: "key given twice"),
    BrokenLine(line: 15, text: "mqtt: { prot: 1883 }",
               key: "mqtt.prot", says: "unknown key", severity: .warning),
    BrokenLine(line: 12, text: "  - { name: a, point: [9, 1, 1] }",
               key: "nodes[1].name", says: "duplicate node id 'a'"),
    BrokenLine(line: 3, text: "    name: Ground",
               key: "floors[0].bounds", says: "missing", reportedAt: 2),
    BrokenLine(line: 5, text: "      - { points: [[0,0],[5,0],[5,8],[0,8]] }",
               key: "floors[0].rooms[0]", says: "needs an id or a name"),
    BrokenLine(line: 2, text: "  - id: [ground]",
               key: "floors[0].id", says: "expects a text value, got a list"),
])
func eachProblemNamesItsLineAndKey(_ broken: BrokenLine) {
    var text = replacing(broken.line, with: broken.text)
    if let doors = broken.doors { text = text.split(separator: "\n", omittingEmptySubsequences: false)
        .enumerated().map { $0.offset == 6 ? doors : String($0.element) }.joined(separator: "\n") }
    let decoded = Site.load(yaml: text)
    #expect(decoded.problems.count == 1, "\(decoded.problems)")
    let problem = decoded.problems.first
    #expect(problem?.line == broken.reportedAt ?? broken.line)
    #expect(problem?.key == broken.key)
    #expect(problem?.severity == broken.severity)
    #expect(problem?.message.contains(broken.says) == true, "\(problem?.message ?? "none")")
}

@Test func everyProblemIsReportedAtOnce() {
    var lines = base
    lines[2] = "    bounds: [[0, 0, 0], [10, 8]]"
    lines[6] = "    doors: [ { between: [living], at: [5, 4] } ]"
    lines[10] = "  - { name: a, point: [1, 1, 1], rx_adj: loud }"
    lines[12] = "irks: [ { id: phone, key: xyz } ]"
    lines[13] = "positioning: { window: -3s, absorption: 9 }"
    let decoded = Site.load(yaml: lines.joined(separator: "\n"))
    let found = decoded.errors.map { "\($0.line) \($0.key)" }
    #expect(found == ["3 floors[0].bounds[1]", "7 floors[0].doors[0].between", "11 nodes[0].rx_adj",
                      "13 irks[0].key", "14 positioning.absorption", "14 positioning.window"])
}

@Test func aSiteWithoutFloorsIsAnError() {
    #expect(Site.load(yaml: "nodes: []").errors.map(\.key) == ["floors"])
    #expect(Site.load(yaml: "").errors.map(\.key) == ["floors"])
    #expect(Site.load(yaml: "- just\n- a list").errors.first?.message.contains("expects a mapping") == true)
}

/// The state deadband's keys (read by the aggregator's publisher): defaults, values, and 0
/// (publish every update), which a duration elsewhere does not allow.
@Test func stateDeadbandKeysAreRead() {
    #expect(Site.load(yaml: base.joined(separator: "\n")).site.positioning.stateDeadband == 0.25)
    #expect(Site.load(yaml: base.joined(separator: "\n")).site.positioning.stateHeartbeat == 10)
    let set = Site.load(yaml: replacing(14, with: "positioning: { window: 3s, state_deadband: 0.5, state_heartbeat: 1m }"))
    #expect(set.problems.isEmpty, "\(set.problems)")
    #expect(set.site.positioning.stateDeadband == 0.5 && set.site.positioning.stateHeartbeat == 60)
    let off = Site.load(yaml: replacing(14, with: "positioning: { window: 3s, state_deadband: 0, state_heartbeat: 0s }"))
    #expect(off.problems.isEmpty, "\(off.problems)")
    #expect(off.site.positioning.stateDeadband == 0 && off.site.positioning.stateHeartbeat == 0)
    // Elsewhere a zero duration is still refused.
    #expect(Site.load(yaml: replacing(14, with: "positioning: { window: 0s }")).errors.map(\.key) == ["positioning.window"])
}

/// The backfill horizon (the aggregator's backfill pass after a broker outage): 10 minutes by
/// default, a duration or 0, and a clear error otherwise.
@Test func backfillHorizonIsRead() {
    #expect(Site.load(yaml: base.joined(separator: "\n")).site.positioning.backfillHorizon == 600)
    let set = Site.load(yaml: replacing(14, with: "positioning: { window: 3s, backfill_horizon: 30m }"))
    #expect(set.problems.isEmpty && set.site.positioning.backfillHorizon == 1800, "\(set.problems)")
    #expect(Site.load(yaml: replacing(14, with: "positioning: { window: 3s, backfill_horizon: 0 }")).site.positioning.backfillHorizon == 0)
    let bad = Site.load(yaml: replacing(14, with: "positioning: { window: 3s, backfill_horizon: soon }"))
    #expect(bad.problems.contains { "\($0)".contains("positioning.backfill_horizon") && "\($0)".contains("expects 0 or a positive duration") },
            "\(bad.problems)")
}
