import Testing
import Wire
import SiteModel
import YAML

/// A site without a floor plan, as a Bermuda or room-assistant user has it: rooms by name, one
/// node per room, no coordinates anywhere.
private let unplanned = [
    "floors:",                                                  // 1
    "  - id: house",                                            // 2
    "    rooms:",                                               // 3
    "      - { id: kitchen, name: Kitchen }",                   // 4
    "      - { id: living, name: Living room }",                // 5
    "      - { id: hall }",                                     // 6
    "    doors: [ { between: [kitchen, hall] } ]",              // 7
    "nodes:",                                                   // 8
    "  - { name: kitchen-pi, room: kitchen }",                  // 9
    "  - { name: living-pi, room: living, rx_adj: 2 }",         // 10
]

private func site(_ lines: [String]) -> SiteDecoding { Site.load(yaml: lines.joined(separator: "\n")) }

@Test func aSiteWithoutAPlanDecodes() {
    let decoded = site(unplanned)
    #expect(decoded.errors.isEmpty, "\(decoded.errors)")
    let s = decoded.site
    #expect(!s.hasFloorPlan)
    #expect(s.floors.count == 1 && !s.floors[0].hasPlan)
    #expect(s.floors[0].rooms.map(\.id) == ["kitchen", "living", "hall"])
    #expect(s.floors[0].rooms.allSatisfy { $0.points.isEmpty })
    #expect(s.floors[0].doors.count == 1 && s.floors[0].doors[0].between == ("kitchen", "hall"))
    #expect(s.nodes.map(\.room) == ["kitchen", "living"])
    // A node's floors default to its room's.
    #expect(s.nodes.map(\.floors) == [["house"], ["house"]])
    #expect(s.nodes[1].rxAdj == 2)
}

@Test func aSiteWithoutAPlanWarnsOfARoomWithNoNode() {
    let decoded = site(unplanned)
    let warnings = decoded.site.geometryWarnings(locations: decoded.locations)
    #expect(warnings.count == 1)
    #expect(warnings.first?.line == 6)
    #expect(warnings.first?.message.contains("room 'hall' has no node in it") == true)
}

@Test func aPlannedSiteStillHasAPlan() {
    let decoded = Site.load(yaml: "floors: [{ id: f, bounds: [[0,0,0],[4,4,3]], rooms: [{ id: a, points: [[0,0],[4,0],[4,4],[0,4]] }] }]\n"
                                + "nodes: [{ name: n, point: [1, 1, 1] }]")
    #expect(decoded.errors.isEmpty)
    #expect(decoded.site.hasFloorPlan && decoded.site.floors[0].hasPlan)
}

struct UnplannedBreak: Sendable, CustomTestStringConvertible {
    let line: Int, text: String, key: String, says: String
    var testDescription: String { says }
}

@Test(arguments: [
    UnplannedBreak(line: 9, text: "  - { name: kitchen-pi, room: garage }", key: "nodes[0].room", says: "unknown room 'garage'"),
    UnplannedBreak(line: 9, text: "  - { name: kitchen-pi, room: kitchen, point: [1, 1, 1] }", key: "nodes[0].room", says: "a point or a room, not both"),
    UnplannedBreak(line: 9, text: "  - { name: kitchen-pi, point: [1, 1, 1] }", key: "nodes[0].point", says: "places nodes by the room they are in"),
    UnplannedBreak(line: 9, text: "  - { name: kitchen-pi }", key: "nodes[0].point", says: "give the room the node is in"),
    UnplannedBreak(line: 9, text: "  - { name: kitchen-pi, room: kitchen, floors: [attic] }", key: "nodes[0].room", says: "which the node's floors leave out"),
    UnplannedBreak(line: 7, text: "    walls: [ { points: [[0,0],[1,1]] } ]", key: "floors[0].walls", says: "walls need a floor plan"),
    UnplannedBreak(line: 7, text: "    doors: [ { between: [kitchen, garage] } ]", key: "floors[0].doors[0].between", says: "no room 'garage'"),
])
func aBrokenSiteWithoutAPlanSaysWhereAndWhat(_ c: UnplannedBreak) {
    var lines = unplanned
    lines[c.line - 1] = c.text
    let decoded = site(lines)
    let match = decoded.errors.first { $0.message.contains(c.says) }
    #expect(match != nil, "\(decoded.problems)")
    #expect(match?.line == c.line)
    #expect(match?.key == c.key)
}

@Test func zonesAndPlannedFloorsDoNotMixWithAFloorWithoutAPlan() {
    let zone = site(unplanned + ["zones: [ { id: sofa, floor: house, points: [[0,0],[1,0],[1,1]] } ]"])
    #expect(zone.errors.contains { $0.line == 11 && $0.message.contains("zone 'sofa' is on floor 'house', which has no plan") })
    var mixed = unplanned
    mixed.insert(contentsOf: ["  - id: attic", "    bounds: [[0, 0, 3], [4, 4, 5]]",
                              "    rooms: [ { id: loft, points: [[0,0],[4,0],[4,4],[0,4]] } ]"], at: 7)
    let decoded = site(mixed)
    #expect(decoded.errors.contains { $0.line == 2 && $0.key == "floors[0].bounds" && $0.message.contains("give every floor a plan or none") })
    // A room on the planned floor cannot take a node by room.
    let planned = site(mixed + ["  - { name: loft-pi, room: loft }"])
    #expect(planned.errors.contains { $0.line == 14 && $0.message.contains("which has a plan: give the node's point instead") })
}

@Test func aRoomWithPointsOnAFloorWithoutBoundsAsksForBounds() {
    var lines = unplanned
    lines[3] = "      - { id: kitchen, name: Kitchen, points: [[0,0],[4,0],[4,4]] }"
    let decoded = site(lines)
    #expect(decoded.errors.contains { $0.key == "floors[0].bounds" && $0.message == "missing" })
}
