import Wire
import SiteModel

/// A 10 × 4 m floor split into two rooms, west and east, at x = 5, with a node in each corner
/// (the aggregator tests' site where rooms matter but zones do not).
func twoRoomSite() -> Site {
    var site = Site()
    var floor = Floor(id: "ground", name: "Ground", bounds: (Point3(0, 0, 0), Point3(10, 4, 2.5)))
    floor.rooms = [Room(id: "west", name: "West", points: [Point2(0, 0), Point2(5, 0), Point2(5, 4), Point2(0, 4)]),
                   Room(id: "east", name: "East", points: [Point2(5, 0), Point2(10, 0), Point2(10, 4), Point2(5, 4)])]
    site.floors = [floor]
    site.nodes = [Node(name: "a", point: Point3(0.3, 0.3, 2)), Node(name: "b", point: Point3(9.7, 0.3, 2)),
                  Node(name: "c", point: Point3(9.7, 3.7, 2)), Node(name: "d", point: Point3(0.3, 3.7, 2))]
    site.positioning.txRefDefault = -59
    return site
}
