import Testing
import Wire
import SiteModel
import YAML

/// `tools/sites/`, found from this file's path so the test runs from any directory.
private let sitesDirectory: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // WireTests/<file>, Tests
    return parts.joined(separator: "/") + "/tools/sites/"
}()

@Test(arguments: ["reference.yaml", "flat.yaml", "house.yaml", "office.yaml"])
func exampleSitesLoadWithoutProblems(_ file: String) {
    let decoded = Site.load(path: sitesDirectory + file)
    #expect(decoded.problems.isEmpty, "\(decoded.problems)")
    #expect(decoded.site.geometryWarnings(locations: decoded.locations).isEmpty)
    #expect(!decoded.site.floors.isEmpty)
}

@Test func exampleSitesHaveTheirShape() {
    func shape(_ file: String) -> [Int] {
        let site = Site.load(path: sitesDirectory + file).site
        return [site.floors.count, site.floors.reduce(0) { $0 + $1.rooms.count }, site.nodes.count]
    }
    #expect(shape("reference.yaml") == [1, 2, 4])
    #expect(shape("flat.yaml") == [1, 5, 5])
    #expect(shape("house.yaml") == [2, 7, 8])
    #expect(shape("office.yaml") == [1, 30, 40])
    let reference = Site.load(path: sitesDirectory + "reference.yaml").site
    #expect(reference.floors[0].bounds.max == Point3(6, 4, 2.5))
    #expect(reference.floors[0].doors == [Door(between: ("west", "east"), at: Point2(3, 2))])
}

@Test func anESPresenseCompanionConfigLoadsAsItIs() throws {
    let decoded = Site.load(path: sitesDirectory + "espresense-companion.yaml")
    #expect(decoded.errors.isEmpty, "\(decoded.errors)")
    // Only what deserves a word: the car parked outside and the name pattern it cannot use.
    #expect(decoded.warnings.map(\.key) == ["nodes[6].point", "devices[0]"])
    let site = decoded.site
    try #require(site.floors.map(\.id) == ["ground", "first"] && site.nodes.count == 7)
    #expect(site.floors[0].rooms.map(\.id) == ["lounge", "kitchen_diner", "hallway"])
    #expect(site.floors[0].rooms[1].name == "Kitchen Diner")
    // The closing corner ESPresense-companion repeats is not a fifth corner.
    #expect(site.floors[0].rooms[0].points.count == 4)
    #expect(site.nodes[2].floors == ["ground", "first"])
    #expect(site.devices.map(\.id) == ["irk:*", "phone:*", "watch:*", "iBeacon:*"])
    #expect(site.excludeDevices == ["iBeacon:e5ca1ade-f007-ba11-0000-000000000000-*"])
    #expect(site.positioning.awayAfter == 120)
    #expect(site.mqtt.host == "localhost" && site.mqtt.tls == nil)
}

@Test func aMissingFileIsOneProblemWithoutALine() {
    let decoded = Site.load(path: sitesDirectory + "no-such-site.yaml")
    #expect(decoded.errors.count == 1)
    #expect(decoded.errors.first?.line == 0)
    #expect(decoded.errors.first?.message.contains("cannot open") == true)
}
