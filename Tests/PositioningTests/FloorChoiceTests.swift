import Testing
@testable import Positioning
import Wire

struct FloorChoiceTests {
    @Test func aFloorThatThreeNodesFixBeatsOneNodeUpstairs() {
        // The two-room ground floor with a room above it whose only node hears the device
        // through the floor: one node fits any position perfectly, yet the device is downstairs.
        var site = twoRoomSite()
        var upstairs = Floor(id: "upstairs", name: "Upstairs", bounds: (Point3(0, 0, 2.5), Point3(10, 4, 5)))
        upstairs.rooms = [Room(id: "attic", name: "Attic", points: [Point2(0, 0), Point2(10, 0), Point2(10, 4), Point2(0, 4)])]
        site.floors.append(upstairs)
        for i in site.nodes.indices { site.nodes[i].floors = ["ground"] }
        site.nodes.append(Node(name: "attic", point: Point3(7, 2, 4.5), floors: ["upstairs"]))
        var rng = SeededGenerator(seed: 8)
        var input = simulate(site: twoRoomSite(), from: 0, to: 60, noise: 6, rng: &rng) { _ in Point3(2, 2, 1) }
        // The attic node, 6 m away and 3.5 m above, through a 15 dB floor.
        for t in stride(from: 0.0, to: 60, by: 0.5) {
            input.append(("attic", Reading(id: deviceID, rssi: -59 - 20 - 15 + Int(3 * rng.gaussian()), t: t + 0.01, kind: .ibeacon)))
        }
        input.sort { $0.reading.t < $1.reading.t }
        let settled = updates(run(Engine(site: site), input)).dropFirst(3)
        #expect(Set(settled.map(\.floor)) == ["ground"])
        // Every fix is the ground floor's six nodes, not the attic node alone.
        #expect(settled.allSatisfy { $0.fixes == 6 }, "\(settled.map(\.fixes))")
    }
}
