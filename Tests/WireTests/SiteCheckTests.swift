import Testing
import Wire
import SiteModel
import YAML

private func warnings(_ yaml: String) -> [SiteProblem] {
    let decoded = Site.load(yaml: yaml)
    #expect(decoded.errors.isEmpty, "\(decoded.errors)")
    return decoded.site.geometryWarnings(locations: decoded.locations)
}

private let twoRooms = """
floors:
  - id: f
    bounds: [[0, 0, 0], [20, 4, 3]]
    rooms:
      - { id: near, points: [[0, 0], [4, 0], [4, 4], [0, 4]] }
      - { id: far, points: [[16, 0], [20, 0], [20, 4], [16, 4]] }
"""

@Test func aRoomFarFromTheNodesIsHeardByTooFew() {
    let site = twoRooms + """

    nodes:
      - { name: a, point: [0.5, 0.5, 1] }
      - { name: b, point: [3.5, 0.5, 1] }
      - { name: c, point: [2, 3.5, 1] }
    """
    let found = warnings(site)
    #expect(found.map(\.key) == ["floors[0].rooms[1]", "floors[0].rooms[1]"])
    #expect(found[0].message.contains("no node inside"))
    #expect(found[1].message.contains("heard by 0 node"))
    #expect(found.allSatisfy { $0.line == 6 })
}

@Test func wallsCountTowardsHearing() {
    // Three nodes 2 m away, but behind three walls: not heard.
    let site = """
    floors:
      - id: f
        bounds: [[0, 0, 0], [10, 4, 3]]
        rooms:
          - { id: room, points: [[0, 0], [4, 0], [4, 4], [0, 4]] }
          - { id: beyond, points: [[4, 0], [10, 0], [10, 4], [4, 4]] }
        walls:
          - { points: [[4.2, 0], [4.2, 4]] }
          - { points: [[4.4, 0], [4.4, 4]] }
          - { points: [[4.6, 0], [4.6, 4]] }
    nodes:
      - { name: a, point: [6, 0.5, 1] }
      - { name: b, point: [6, 3.5, 1] }
      - { name: c, point: [9, 2, 1] }
    """
    let messages = warnings(site).map(\.message)
    #expect(messages.contains { $0.contains("'room' is heard by 0 node") })
    #expect(!messages.contains { $0.contains("'beyond' is heard") })
}

@Test func nodesOnALineAreCollinear() {
    let line = twoRooms + """

    nodes:
      - { name: a, point: [1, 2, 1] }
      - { name: b, point: [8, 2.1, 1] }
      - { name: c, point: [18, 1.9, 1] }
    """
    #expect(warnings(line).contains { $0.key == "floors[0]" && $0.message.contains("nearly on one line") })
    let spread = line.replacingOccurrences("[8, 2.1, 1]", "[8, 3.9, 1]")
    #expect(!warnings(spread).contains { $0.message.contains("nearly on one line") })
}

@Test func overlappingRoomsAreReported() {
    let site = """
    floors:
      - id: f
        bounds: [[0, 0, 0], [6, 4, 3]]
        rooms:
          - { id: a, points: [[0, 0], [4, 0], [4, 4], [0, 4]] }
          - { id: b, points: [[3, 0], [6, 0], [6, 4], [3, 4]] }
          - { id: c, points: [[4, 0], [6, 0], [6, 4], [4, 4]] }
    nodes:
      - { name: n1, point: [0.5, 0.5, 1] }
      - { name: n2, point: [5.5, 0.5, 1] }
      - { name: n3, point: [3, 3.5, 1] }
    """
    let overlaps = warnings(site).filter { $0.message.contains("overlap") }
    // a–b overlap by 4 m²; b contains c entirely (8 m²); a and c only share an edge.
    #expect(overlaps.map { String($0.message.prefix(25)) } == ["rooms 'a' and 'b' overlap", "rooms 'b' and 'c' overlap"])
    #expect(overlaps[0].message.contains("about 4 m²"))
    #expect(overlaps[1].message.contains("about 8 m²"))
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
