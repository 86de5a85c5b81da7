@testable import Simulation
import Testing
import Wire
import SiteModel

/// A channel over the reference site with only the effects a test asks for.
private func channel(_ configure: (inout ChannelEffects) -> Void = { _ in }, seed: UInt64 = 1) throws -> Channel {
    var e = ChannelEffects()
    e.shadowingSD = 0; e.ricianK = nil; e.bodyLoss = 0; e.rxOffsetSD = 0; e.txErrorSD = 0; e.lossBase = 0; e.lossMidRSSI = -127
    configure(&e)
    var s = try scenario("devices: [ { mac: \"00:00:00:00:00:01\", path: [ { at: [1, 1] } ] } ]")
    s.effects = e
    s.seed = seed
    s.nodes = try site(referenceSite).nodes.map { NodeSetting(name: $0.name, rxOffset: 0) }
    let prepared = Simulation.prepare(site: try site(referenceSite), scenario: s)
    return try #require(prepared.simulation).makeState().channel
}

private func at(_ x: Double, _ y: Double, z: Double = 1.2, heading: Point2 = Point2(1, 0)) -> Track.State {
    Track.State(position: Point3(x, y, z), floor: 0, heading: heading, away: false)
}

/// With every impairment off, the mean is the log-distance model itself, and the
/// distance it implies is the true one.
@Test(arguments: [0.5, 1.0, 2.0, 2.8])
func pathLossGivesTheModelsRSSI(distance: Double) throws {
    let c = try channel()
    // Node sw stands at (0.1, 0.1, 1.2): move along the wall-free diagonal of the west room.
    let d = distance / 2.0.squareRoot()
    let mean = c.meanRSSI(at(0.1 + d, 0.1 + d), txPower: -59, bodyLoss: 0, node: 0)
    let expected = -59 - 27 * Elementary.log10(distance)
    #expect(abs(mean - expected) < 1e-9)
    let recovered = Elementary.exp10((-59 - mean) / 27)
    #expect(abs(recovered - distance) < 1e-9)
}

/// Many packets through a channel with shadowing and per-node offsets drawn from many seeds
/// (fading off): the mean RSSI at each distance is the model's within 1 dB, and the spread
/// is the shadowing asked for.
@Test(arguments: [1.0, 2.0])
func shadowingAveragesToThePathLossModel(distance: Double) throws {
    var sum = 0.0, sumSquares = 0.0, count = 0.0
    let d = distance / 2.0.squareRoot()
    for seed in 1...300 as ClosedRange<UInt64> {
        let c = try channel({ $0.shadowingSD = 4 }, seed: seed)
        var rng = RandomStream(seed: seed, label: "test")
        let mean = c.meanRSSI(at(0.1 + d, 0.1 + d), txPower: -59, bodyLoss: 0, node: 0)
        for _ in 0..<20 {
            guard let rssi = c.receive(mean: mean, rng: &rng) else { continue }
            sum += Double(rssi); sumSquares += Double(rssi) * Double(rssi); count += 1
        }
    }
    let average = sum / count, sd = (sumSquares / count - average * average).squareRoot()
    let expected = -59 - 27 * Elementary.log10(distance)
    #expect(abs(average - expected) < 1, "mean \(average) vs \(expected)")
    #expect(abs(sd - 4) < 0.6, "sd \(sd)")
}

/// A still device sees a stable bias: the field is the same at the same spot, close at
/// nearby spots, and unrelated far away.
@Test func shadowingIsCorrelatedInSpace() {
    var near = 0.0, far = 0.0, variance = 0.0
    for seed in 1...400 as ClosedRange<UInt64> {
        var rng = RandomStream(seed: seed, label: "field")
        let field = ShadowingField(sd: 4, correlation: 2, rng: &rng)
        let here = field.value(at: Point2(1, 1))
        #expect(here == field.value(at: Point2(1, 1)))
        near += here * field.value(at: Point2(1.3, 1))
        far += here * field.value(at: Point2(9, 1))
        variance += here * here
    }
    // Correlation exp(-d²/2L²): 0.989 at 0.3 m, 0.0003 at 8 m.
    #expect(near / variance > 0.9)
    #expect(abs(far / variance) < 0.2)
}

/// The wall between west and east takes its attenuation, except through the open door.
@Test func wallsAttenuateExceptThroughTheDoor() throws {
    let c = try channel()
    // From node sw (0.1, 0.1): (2.9, 1) is west of the wall, (3.1, 1) east, both ≈ 3 m away.
    let west = c.meanRSSI(at(2.9, 1.0), txPower: -59, bodyLoss: 0, node: 0)
    let east = c.meanRSSI(at(3.1, 1.0), txPower: -59, bodyLoss: 0, node: 0)
    let pathDifference = 27 * (Elementary.log10((3.0 * 3.0 + 0.81).squareRoot()) - Elementary.log10((2.8 * 2.8 + 0.81).squareRoot()))
    #expect(abs((west - east) - (4 + pathDifference)) < 1e-9)
    // Node nw (0.1, 3.9) to (5, 0.5): the line crosses x = 3 at y ≈ 1.9, in the doorway.
    let throughDoor = c.meanRSSI(at(5.0, 0.5, z: 2.2), txPower: -59, bodyLoss: 0, node: 3)
    let expected = -59 - 27 * Elementary.log10((4.9 * 4.9 + 3.4 * 3.4).squareRoot())
    #expect(abs(throughDoor - expected) < 1e-9)
}

/// Body shadowing: the node behind the walker hears `bodyLoss` less than the node ahead.
@Test func theBodyShadowsNodesBehindTheWalker() throws {
    let c = try channel()
    // At (1.5, 0.1), 1.4 m east of node sw (0.1, 0.1): behind a walker facing east, ahead of one facing west.
    let facingEast = at(1.5, 0.1, heading: Point2(1, 0)), facingWest = at(1.5, 0.1, heading: Point2(-1, 0))
    let behind = c.meanRSSI(facingEast, txPower: -59, bodyLoss: 6, node: 0)
    let ahead = c.meanRSSI(facingWest, txPower: -59, bodyLoss: 6, node: 0)
    #expect(abs((ahead - behind) - 6) < 1e-9)
}

/// Fading spreads packets around the mean; packets get lost more often when the signal is weaker.
@Test func fadingSpreadsAndLossGrowsWithDistance() throws {
    let c = try channel({ $0.ricianK = 2; $0.lossBase = 0.05; $0.lossMidRSSI = -90; $0.lossWidth = 3 })
    var rng = RandomStream(seed: 3, label: "packets")
    func heard(_ mean: Double) -> (rate: Double, sd: Double) {
        var values: [Double] = []
        for _ in 0..<20_000 { if let r = c.receive(mean: mean, rng: &rng) { values.append(Double(r)) } }
        let m = values.reduce(0, +) / Double(values.count)
        return (Double(values.count) / 20_000, (values.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(values.count)).squareRoot())
    }
    let close = heard(-60), farther = heard(-85), farthest = heard(-92)
    #expect(close.rate > 0.9 && close.rate > farther.rate && farther.rate > farthest.rate)
    #expect(close.sd > 2 && close.sd < 8)
    #expect(c.receive(mean: -140, rng: &rng) == nil)
}
