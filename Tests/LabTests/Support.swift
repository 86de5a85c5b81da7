import SiteModel

/// Two rooms of 5 × 4 m side by side, split by a 6 dB wall at x = 5 with a door at y = 2,
/// a desk zone in the east room, and a node in each corner (PositioningTests' site).
func twoRoomSite() -> Site {
    var site = Site()
    var floor = Floor(id: "ground", name: "Ground", bounds: (Point3(0, 0, 0), Point3(10, 4, 2.5)))
    floor.rooms = [Room(id: "west", name: "West", points: [Point2(0, 0), Point2(5, 0), Point2(5, 4), Point2(0, 4)]),
                   Room(id: "east", name: "East", points: [Point2(5, 0), Point2(10, 0), Point2(10, 4), Point2(5, 4)])]
    floor.walls = [Wall(points: [Point2(5, 0), Point2(5, 1.5)], attenuation: 6),
                   Wall(points: [Point2(5, 2.5), Point2(5, 4)], attenuation: 6)]
    floor.doors = [Door(between: ("west", "east"), at: Point2(5, 2))]
    site.floors = [floor]
    site.zones = [Zone(id: "desk", name: "Desk", floor: "ground", points: [Point2(7, 0.5), Point2(9, 0.5), Point2(9, 2), Point2(7, 2)])]
    site.nodes = [Node(name: "w1", point: Point3(0.3, 0.3, 2.2)), Node(name: "w2", point: Point3(4.7, 3.7, 1.0)),
                  Node(name: "w3", point: Point3(0.3, 3.7, 1.6)), Node(name: "e1", point: Point3(5.3, 0.3, 2.2)),
                  Node(name: "e2", point: Point3(9.7, 3.7, 1.0)), Node(name: "e3", point: Point3(9.7, 0.3, 1.6))]
    site.positioning.absorption = 2.5
    site.positioning.txRefDefault = -59
    site.positioning.awayAfter = 30
    return site
}
