import Testing
@testable import Positioning
import Wire
import SiteModel

struct GridSearchTests {
    /// The two-room site compiled as the engine compiles it for the default locator.
    static func geometry(_ site: Site) -> SiteGeometry {
        var geometry = SiteGeometry(site)
        geometry.deviceHeight = 1.2
        geometry.buildGrids(slope: PathLoss(exponent: site.positioning.absorption).slope, height: 1.2)
        return geometry
    }

    @Test(arguments: [Point3(8, 3, 1.2), Point3(2, 1, 1.2), Point3(6.2, 0.8, 1.2)])
    func theGridsBestCellIsTheOneHoldingTheDevice(truth: Point3) throws {
        let site = twoRoomSite()
        let geometry = Self.geometry(site)
        let grid = try #require(geometry.grids.first)
        let problem = Problem(sigma: 6, huber: 1.5, slope: PathLoss(exponent: 2.5).slope, floor: 0)
        let best = try #require(grid.best(exactObservations(site, at: truth), problem: problem))
        // Exact readings: the best cell is the one the device is in (cells are 0.5 m).
        #expect(abs(best.x - truth.x) <= grid.cell / 2 + 1e-9 && abs(best.y - truth.y) <= grid.cell / 2 + 1e-9, "\(best)")
    }

    @Test func aSolveStartedInTheOtherRoomStillFindsTheDevice() throws {
        // The track predicts the west room; the device is in the east room behind the wall.
        let site = twoRoomSite()
        let truth = Point3(8.5, 3.2, 1.2)
        var obs = exactObservations(site, at: truth)
        let fix = try #require(Multilateration().locate(&obs, floor: 0, site: Self.geometry(site), model: PathLoss(exponent: 2.5),
                                                        hint: Point3(1, 0.5, 1.2)))
        #expect(distance(fix.position, truth) < 0.05, "\(fix.position)")
    }

    @Test func aPredictionThatFitsIsKeptWithoutTheGlobalSearch() throws {
        // The prediction is 0.3 m off and the readings are exact: the warm start ends on the
        // device with no cost, so the solve returns it without searching the grid (whose
        // tables are emptied here, so a search could not have found it).
        let site = twoRoomSite()
        let truth = Point3(7.5, 2.2, 1.2)
        var geometry = Self.geometry(site)
        geometry.grids[0].loss = [Float](repeating: 0, count: geometry.grids[0].loss.count)
        var obs = exactObservations(site, at: truth)
        let fix = try #require(Multilateration().locate(&obs, floor: 0, site: geometry, model: PathLoss(exponent: 2.5),
                                                        hint: Point3(7.2, 2.2, 1.2)))
        #expect(distance(fix.position, truth) < 0.05, "\(fix.position)")
        #expect(fix.cost < 1e-6)
        // Without the warm start the emptied grid sends the second solve elsewhere; the better
        // fit still wins, so the answer is the same.
        var cold = Multilateration()
        cold.warmCost = 0
        var again = exactObservations(site, at: truth)
        let other = try #require(cold.locate(&again, floor: 0, site: geometry, model: PathLoss(exponent: 2.5), hint: Point3(7.2, 2.2, 1.2)))
        #expect(distance(other.position, truth) < 0.05)
    }
}

struct ScoringTests {
    @Test func truthLinesParseWithAwayPeriods() throws {
        let text = """
            {"t":10.0,"id":"a","x":1,"y":2,"z":1,"floor":"main","room":"west"}
            {"t":10.1,"id":"a","x":null,"y":null,"z":null,"floor":null,"room":"away"}
            {"t":10.0,"id":"b","x":4,"y":2,"z":1,"floor":"main","room":null}
            """
        let truth = try GroundTruth(jsonLines: Array(text.utf8))
        #expect(truth.devices.keys.sorted() == ["a", "b"])
        #expect(truth.sample("a", at: 10.02)?.room == "west")
        #expect(truth.sample("a", at: 10.09)?.isAway == true)
        #expect(truth.sample("b", at: 10)?.position == Point3(4, 2, 1))
        #expect(truth.sample("b", at: 20) == nil)
        #expect(throws: Philotuxo.FormatError.self) { try GroundTruth(jsonLines: Array("{\"t\":1}".utf8)) }
    }

    /// Still in the west room for 100 s (with a 3 s flip to east at 50 s), then in the east
    /// room for 100 s; the engine reports the change 4 s after it happened.
    @Test func roomErrorsStillFlipsAndDoorDelayAreCounted() throws {
        var lines = ""
        for k in 0..<2000 {
            let t = Double(k) / 10, east = t >= 100
            lines += "{\"t\":\(t),\"id\":\"d\",\"x\":\(east ? 5 : 1),\"y\":1,\"z\":1,\"floor\":\"f\",\"room\":\"\(east ? "east" : "west")\"}\n"
        }
        let truth = try GroundTruth(jsonLines: Array(lines.utf8))
        var output = ReplayOutput()
        for k in 1..<400 {
            let t = Double(k) * 0.5
            let east = (t >= 50 && t < 53) || t >= 104
            output.updates.append(DeviceUpdate(id: "d", name: nil, t: t, x: east ? 5 : 1, y: 1, z: 1, floor: "f",
                                               room: east ? "east" : "west", zones: [], confidence: 1, fixes: 4, since: 0))
        }
        for (t, room) in [(0.5, "west"), (50, "east"), (53, "west"), (104, "east")] {
            output.events.append(ZoneEvent(.enter, device: "d", zone: room, floor: "f", t: t, confidence: 1, dwell: nil, isRoom: true))
        }
        let score = SiteScore(output, truth: truth)
        #expect(score.roomChecks == 399)
        #expect(score.roomErrors == 14)
        // The 8 after the change at 100 s are its lag; the 6 of the flip at 50 s are a wrong stay.
        #expect(score.roomErrorsAtChanges == 8)
        #expect(SiteScore.isShortlyAfter(114.9, [100]) && !SiteScore.isShortlyAfter(115, [100]) && !SiteScore.isShortlyAfter(99, [100]))
        #expect(score.confusion["west"]?["east"] == 6 && score.confusion["east"]?["west"] == 8)
        #expect(score.stillFlips == 2)
        #expect(abs(score.stillSeconds - 179.8) < 1e-6)
        #expect(score.crossings == 1 && score.missed == 0 && score.delays == [4])
        #expect(score.errors.median == 0 && score.errors.count == 399)
        #expect(AccuracyBars.missed(score, baselines: []).contains("≥ 1 flip/h still"))
    }

    @Test func fixedFormatsLikePrintf() {
        #expect(fixed(1.005, 2) == "1.00" || fixed(1.005, 2) == "1.01")
        #expect(fixed(-0.25, 1) == "-0.3" || fixed(-0.25, 1) == "-0.2")
        #expect(fixed(12.5, 0) == "13" || fixed(12.5, 0) == "12")
        #expect(fixed(3.14159, 3) == "3.142")
        #expect(fixed(-0.0001, 2) == "0.00")
        #expect(fixed(.nan, 2) == "–")
    }

    @Test func aTruthOnTheLineTwoRoomsShareBelongsToBoth() throws {
        // The truth stands exactly on x = 5, the line west and east share, and names west (the
        // first room listed); the engine says east. With the site, that is no error.
        var lines = ""
        for k in 0..<200 {
            lines += "{\"t\":\(Double(k) / 10),\"id\":\"d\",\"x\":5,\"y\":1,\"z\":1,\"floor\":\"ground\",\"room\":\"west\"}\n"
        }
        let truth = try GroundTruth(jsonLines: Array(lines.utf8))
        var output = ReplayOutput()
        for k in 1..<40 {
            output.updates.append(DeviceUpdate(id: "d", name: nil, t: Double(k) * 0.5, x: 5.2, y: 1, z: 1, floor: "ground",
                                               room: "east", zones: [], confidence: 1, fixes: 4, since: 0))
        }
        #expect(SiteScore(output, truth: truth).roomErrors == 39)
        let scored = SiteScore(output, truth: truth, site: twoRoomSite())
        #expect(scored.roomErrors == 0 && scored.roomChecks == 39)
        #expect(scored.confusion["east"]?["east"] == 39)
    }
}
