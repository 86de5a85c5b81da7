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

