import Testing
import Wire
@testable import Aggregator

// Audit, 2026-11-30: findings in files this audit does not own, each a failing test kept
// disabled until the owner fixes it (the report lists the suggested fix).

/// Home Assistant discovery names each room, zone and named device by `Topics.slug` of its id:
/// lower-case ASCII letters and digits, every other run of characters one `_`. Different ids
/// then share one retained config topic, and each one published replaces the one before: Home
/// Assistant keeps one sensor of the two (rooms `front-door` and `front_door`), or one of every
/// room named in Cyrillic, Greek or CJK (`кухня` and `спальня` are both `_`).
@Test(.disabled("audit: discovery topics collide when ids differ only outside [a-z0-9] (front-door/front_door, кухня/спальня); the later retained config replaces the earlier"),
      arguments: [["front-door", "front_door"], ["кухня", "спальня"], ["Hall", "hall"]])
func discoveryGivesEveryRoomItsOwnTopic(ids: [String]) {
    var site = Site()
    var floor = Floor(id: "ground", name: "Ground", bounds: (Point3(0, 0, 0), Point3(10, 4, 2.5)))
    floor.rooms = [Room(id: ids[0], name: ids[0], points: [Point2(0, 0), Point2(5, 0), Point2(5, 4), Point2(0, 4)]),
                   Room(id: ids[1], name: ids[1], points: [Point2(5, 0), Point2(10, 0), Point2(10, 4), Point2(5, 4)])]
    site.floors = [floor]
    var publisher = Publisher(site: site, topics: Topics())
    let topics = publisher.discovery(site: site).map(\.topic)
    #expect(Set(topics).count == topics.count, "\(topics)")
}
