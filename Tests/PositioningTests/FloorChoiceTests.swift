import Testing
@testable import Positioning
import Wire
import SiteModel

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

    /// Two floors of 10 × 8 m like the house's (`tools/sites/house.yaml`): a room at the front
    /// and the hall (or landing) along the back on each, four nodes per floor in the corners,
    /// the stairs at (9, 7).
    static func twoFloorSite() -> Site {
        var site = Site()
        for (id, hall, room, z0) in [("ground", "hall", "living", 0.0), ("upstairs", "landing", "bedroom", 2.7)] {
            var floor = Floor(id: id, name: id, bounds: (Point3(0, 0, z0), Point3(10, 8, z0 + 2.7)))
            floor.rooms = [Room(id: room, name: room, points: [Point2(0, 0), Point2(10, 0), Point2(10, 5), Point2(0, 5)]),
                           Room(id: hall, name: hall, points: [Point2(0, 5), Point2(10, 5), Point2(10, 8), Point2(0, 8)])]
            site.floors.append(floor)
            for (i, xy) in [Point2(0.5, 0.5), Point2(9.5, 0.5), Point2(0.5, 7.5), Point2(9.5, 7.5)].enumerated() {
                site.nodes.append(Node(name: "\(id)-\(i)", point: Point3(xy.x, xy.y, z0 + 1.8), floors: [id]))
            }
        }
        site.positioning.absorption = 2.7
        site.positioning.txRefDefault = -59
        site.positioning.awayAfter = 30
        return site
    }

    @Test func aDeviceComingDownTheStairsChangesFloorWithinSeconds() {
        // A minute on the landing at the top of the stairs, down them in 4 s (the floor changes
        // at t = 61.8, where it passes 2.7 m), then west along the hall. Exact readings: the
        // engine's own model, and 15 dB through the floor, which the engine is not told.
        let site = Self.twoFloorSite()
        let model = PathLoss(exponent: site.positioning.absorption)
        func position(_ t: Double) -> Point3 {
            if t < 60 { return Point3(9, 7, 3.9) }
            if t < 64 { return Point3(9, 7, 3.9 - 2.7 * (t - 60) / 4) }
            return Point3(max(9 - (t - 64), 3), 7, 1.2)
        }
        var input: [(node: String, reading: Reading)] = []
        for t in stride(from: 0.0, to: 100, by: 0.5) {
            let p = position(t)
            let floor = p.z < 2.7 ? "ground" : "upstairs"
            for node in site.nodes {
                let rssi = model.rssi(distance: distance(p, node.point), txRef: -59) - (node.floors == [floor] ? 0 : 15)
                input.append((node.name, Reading(id: deviceID, rssi: Int(rssi.rounded()), t: t, kind: .ibeacon)))
            }
        }
        let all = updates(run(Engine(site: site), input))
        // Settled on the landing and never off it while there.
        #expect(all.filter { $0.t >= 10 && $0.t < 60 }.allSatisfy { $0.room == "landing" })
        // In the hall within 2.5 s of reaching the ground floor (1.7 s; 2.7 s while the room test
        // weighed a fix on another floor by its confidence), and there from then on.
        let arrived = all.first { $0.t > 61.8 && $0.room == "hall" }?.t ?? .infinity
        #expect(arrived - 61.8 <= 2.5, "hall entered \(arrived - 61.8) s after the floor changed")
        #expect(all.filter { $0.t >= arrived }.allSatisfy { $0.room == "hall" })
    }

    /// A fix on another floor counts in full in the room test only when its floor won against
    /// another floor that three or more nodes fixed too (`Fix.floorContested`): a floor that
    /// was the only one the engine could solve (the current floor's nodes down, or two heard and
    /// three through the ceiling) moves the device only as fast as the fixes' confidence says.
    @Test func onlyAContestedFloorCountsInFullInTheRoomTest() {
        let geometry = SiteGeometry(Self.twoFloorSite())
        let living = geometry.rooms.firstIndex { $0.id == "living" }!
        func secondsToLeave(contested: Bool) -> Double {
            var presence = Presence()
            let heard = [Double](repeating: -.infinity, count: geometry.rooms.count)
            // Settled in the living room with confident fixes…
            for i in 0..<20 {
                presence.observe(Point2(5, 2), floor: 0, confidence: 0.8, heard: heard, at: Double(i) * 0.5,
                                 site: geometry, options: EngineOptions()) { _, _, _, _ in }
            }
            #expect(presence.room == living)
            // …then fixes in the bedroom above, at a confidence of 0.1.
            for i in 20..<400 {
                let t = Double(i) * 0.5
                presence.observe(Point2(5, 2), floor: 1, confidence: 0.1, floorContested: contested, heard: heard, at: t,
                                 site: geometry, options: EngineOptions()) { _, _, _, _ in }
                if presence.room != living { return t - 10 }
            }
            return .infinity
        }
        let contested = secondsToLeave(contested: true), alone = secondsToLeave(contested: false)
        #expect(contested <= 8, "contested: \(contested) s")
        #expect(alone >= 2.5 * contested, "contested \(contested) s, uncontested \(alone) s")
    }

    @Test func aDeviceAtTheFootOfTheStairsStaysOnTheGroundFloor() {
        // Ten minutes at the foot of the stairs, under the landing's node: the hall's node 1 m
        // away, the landing's 3.3 m above through a 15 dB floor that the engine is not told of,
        // 6 dB of noise per reading and nothing heard below -100 dBm (the far upstairs nodes
        // come and go). A guard: no fix may take the track upstairs (it passed before the
        // other floors' nodes counted in the floor choice too).
        let site = Self.twoFloorSite()
        let model = PathLoss(exponent: site.positioning.absorption)
        var wrong: [Int] = []
        for seed in UInt64(1)...3 {
            var rng = SeededGenerator(seed: seed)
            var input: [(node: String, reading: Reading)] = []
            let p = Point3(9, 7, 1.2)
            for t in stride(from: 0.0, to: 600, by: 0.5) {
                for node in site.nodes {
                    let rssi = model.rssi(distance: distance(p, node.point), txRef: -59) - (node.floors == ["ground"] ? 0 : 15)
                        + 6 * rng.gaussian()
                    guard rssi > -100 else { continue }
                    input.append((node.name, Reading(id: deviceID, rssi: Int(rssi.rounded()), t: t, kind: .ibeacon)))
                }
            }
            // The track's height tells the floor of the fixes it follows (a fix on another floor restarts it there).
            wrong.append(updates(run(Engine(site: site), input)).filter { $0.t >= 5 && $0.z >= 2.7 }.count)
        }
        #expect(wrong.allSatisfy { $0 == 0 }, "updates on the upstairs floor per seed: \(wrong)")
    }

    @Test func aNodeOfAnotherFloorHeardLouderThanTheFixAllowsCountsAgainstIt() {
        // The hall's node (ground, 1.8 m up) heard as if 1 m away; a fix on the landing 2.4 m
        // above it cannot hear it that loud through anything, one on the ground beside it can.
        let site = SiteGeometry(Self.twoFloorSite())
        let model = PathLoss(exponent: 2.7)
        let hall = site.nodes.firstIndex { $0.name == "ground-3" }!
        let loud = Observation(node: Int32(hall), position: site.nodes[hall].point,
                               rssi: model.rssi(distance: 1, txRef: -59), txRef: -59, samples: 6)
        let locator = Multilateration()
        func fix(_ p: Point3, floor: Int) -> Fix {
            Fix(position: p, floor: floor, xx: 1, xy: 0, yy: 1, zz: 1, confidence: 0.5, fixes: 4, cost: 0)
        }
        let upstairs = locator.otherFloorsCost([loud], fix: fix(Point3(9, 7, 4.2), floor: 1), site: site, model: model)
        #expect(upstairs > 0.5)
        // On its own floor it is the fit's business, not this term's.
        #expect(locator.otherFloorsCost([loud], fix: fix(Point3(9, 7, 1.2), floor: 0), site: site, model: model) == 0)
        // Heard quieter than the fix allows: the floor may have taken that much, so it says nothing.
        var quiet = loud
        quiet.rssi = model.rssi(distance: 6, txRef: -59)
        #expect(locator.otherFloorsCost([quiet], fix: fix(Point3(9, 7, 4.2), floor: 1), site: site, model: model) == 0)
    }
}
