import Testing
@testable import Positioning
import Wire
import SiteModel

/// The default locator's range floor: a node's RSSI cannot place a device closer than about a
/// quarter of a metre, so near a node the dB noise grows and one loud node weighs less.
struct RangeFloorTests {
    static let model = PathLoss(exponent: 2.5)

    static func observation(impliedDistance d: Double) -> Observation {
        Observation(node: 0, position: Point3(0, 0, 1), rssi: model.rssi(distance: d, txRef: -59), txRef: -59, samples: 5)
    }

    @Test func onlyNodesHeardAsIfNearbyGetAWiderSpread() {
        var obs = [Self.observation(impliedDistance: 0.5), Self.observation(impliedDistance: 2), Self.observation(impliedDistance: 8)]
        Multilateration().widenNearNodes(&obs, model: Self.model)
        // slope · 0.25 / d in quadrature with 6 dB: 0.5 m → ×1.35, 2 m → ×1.03, 8 m → ×1.002.
        #expect(abs(obs[0].spread - 1.35) < 0.01, "\(obs[0].spread)")
        #expect(obs[1].spread > 1.01 && obs[1].spread < 1.05, "\(obs[1].spread)")
        #expect(obs[2].spread < 1.005, "\(obs[2].spread)")
        var off = [Self.observation(impliedDistance: 0.5)]
        var locator = Multilateration()
        locator.rangeFloor = 0
        locator.widenNearNodes(&off, model: Self.model)
        #expect(off[0].spread == 1)
    }

    @Test(arguments: [Point3(3.2, 2.6, 1.2), Point3(8.2, 2.4, 1.2), Point3(1.6, 1.3, 1.2)])
    func aNodeHeardFarTooLoudPullsTheFixLess(truth: Point3) throws {
        let site = twoRoomSite()
        var geometry = SiteGeometry(site)
        geometry.deviceHeight = 1.2
        geometry.buildGrids(slope: Self.model.slope, height: 1.2)
        // Exact readings, except that the node nearest the device hears it 10 dB too loud
        // (a reflection, a node antenna pointing at it).
        var obs = exactObservations(site, at: truth)
        let near = try #require(obs.indices.min { distance(obs[$0].position, truth) < distance(obs[$1].position, truth) })
        obs[near].rssi += 10
        var plain = Multilateration()
        plain.rangeFloor = 0
        var a = obs, b = obs
        let with = try #require(Multilateration().locate(&a, floor: 0, site: geometry, model: Self.model, hint: nil))
        let without = try #require(plain.locate(&b, floor: 0, site: geometry, model: Self.model, hint: nil))
        #expect(distance(with.position, truth) < distance(without.position, truth),
                "with the floor \(distance(with.position, truth)) m, without \(distance(without.position, truth)) m")
    }
}
