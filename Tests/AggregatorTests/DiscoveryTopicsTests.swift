import Testing
import Wire
import SiteModel
@testable import Aggregator

/// Home Assistant discovery names each room, zone and named device by a slug of its id: lower-
/// case ASCII letters and digits, every other run of characters one `_`. Until the audit of
/// 2026-11-30 different ids could share one retained config topic, each replacing the one
/// before: Home Assistant kept one sensor of rooms `front-door` and `front_door`, or one of
/// every room named in Cyrillic, Greek or CJK (`кухня` and `спальня` are both `_`).
@Test(arguments: [["front-door", "front_door"], ["кухня", "спальня"], ["Hall", "hall"]])
func discoveryGivesEveryRoomItsOwnTopic(ids: [String]) {
    var site = Site()
    var floor = Floor(id: "ground", name: "Ground", bounds: (Point3(0, 0, 0), Point3(10, 4, 2.5)))
    floor.rooms = [Room(id: ids[0], name: ids[0], points: [Point2(0, 0), Point2(5, 0), Point2(5, 4), Point2(0, 4)]),
                   Room(id: ids[1], name: ids[1], points: [Point2(5, 0), Point2(10, 0), Point2(10, 4), Point2(5, 4)])]
    site.floors = [floor]
    var discovery = Discovery(site: site, topics: Topics(), version: "")
    let topics = discovery.messages().map(\.topic)
    #expect(Set(topics).count == topics.count, "\(topics)")
}
