import Testing
import Foundation
@testable import Positioning
import Wire
import SiteModel

/// Self-calibration learns, from a device walking about, what the site file does not say: a
/// node that hears louder than the others, and a path-loss exponent other than the site's.
struct SelfCalibrationTests {
    /// A loop through both rooms of `twoRoomSite`, 40 s a lap.
    private func loop(_ t: Double) -> Point3 {
        let a = t * 2 * Double.pi / 40
        return Point3(5 + 3.8 * cos(a), 2 + 1.5 * sin(a), 1.0)
    }

    /// Readings of the loop by a channel of exponent `exponent`, node `loud` hearing `by` dB louder.
    private func walk(seconds: Double, exponent: Double = 2.5, loud: String = "w2", by louder: Double = 6,
                      seed: UInt64 = 7) -> [(node: String, reading: Reading)] {
        var channel = twoRoomSite()
        channel.positioning.absorption = exponent
        var rng = SeededGenerator(seed: seed)
        return simulate(site: channel, from: 0, to: seconds, noise: 3, rng: &rng, path: loop).map { item in
            var r = item.reading
            if item.node == loud { r.rssi = min(r.rssi + Int(louder), -1) }
            return (item.node, r)
        }
    }

    private func meanError(_ output: [EngineOutput], last: Int) -> Double {
        let e = updates(output).suffix(last).map { u in
            let p = loop(u.t)
            return ((u.x - p.x) * (u.x - p.x) + (u.y - p.y) * (u.y - p.y)).squareRoot()
        }
        return e.reduce(0, +) / Double(max(e.count, 1))
    }

    /// `twoRoomSite` with its exponent left at the default guess (2.5 in the channel, 2.7 here),
    /// so fixes teach it, unless `stated`.
    private func site(_ mode: SelfCalibrationMode, stated: Bool = false) -> Site {
        var site = twoRoomSite()
        site.positioning.selfCalibration = mode
        site.positioning.absorptionStated = stated
        return site
    }

    /// Fixes teach offsets only when asked to (`fixOffsetWeight`, 0 by default): the mechanism.
    @Test func aLoudNodeIsLearnedFromFixesWhenTheyTeachOffsets() {
        let input = walk(seconds: 1200)
        var options = EngineOptions()
        options.selfCalibration.fixOffsetWeight = 1
        let learning = Engine(site: site(.learn), options: options)
        let learned = meanError(run(learning, input), last: 600)
        let plain = meanError(run(Engine(site: site(.off)), input), last: 600)
        let offsets = Dictionary(uniqueKeysWithValues: learning.calibrationSnapshot().nodes.map { ($0.name, $0.offset) })
        // The truth about the mean: w2 +5 dB, every other node −1 dB; learned, the opposite.
        #expect(offsets.count == 6)
        #expect((offsets["w2"] ?? 0) < -3.5, "\(offsets)")
        for (name, offset) in offsets where name != "w2" { #expect(abs(offset - 1) < 1.5, "\(name): \(offset)") }
        #expect(abs(offsets.values.reduce(0, +)) < 1e-9, "the gauge: offsets average 0")
        #expect(learned < plain - 0.1, "learning \(learned) m, off \(plain) m")
        #expect(learning.calibration.updates > 1000)
        // By default a walker moves no offset: only the exponent (the site's is not stated).
        let plainDefault = Engine(site: site(.learn))
        _ = run(plainDefault, input)
        #expect(plainDefault.calibrationSnapshot().nodes.isEmpty && plainDefault.calibrationSnapshot().floors.count == 1)
    }

    @Test func aStatedExponentIsNotLearnedFromFixes() {
        let engine = Engine(site: site(.learn, stated: true))
        _ = run(engine, walk(seconds: 600, exponent: 1.9, by: 0))
        #expect(engine.calibrationSnapshot().floors.isEmpty && engine.calibration.updates == 0)
    }

    @Test func aLowerExponentIsLearned() {
        let engine = Engine(site: site(.learn))
        _ = run(engine, walk(seconds: 1200, exponent: 1.9, by: 0))
        let exponent = try? #require(engine.calibrationSnapshot().floors.first?.exponent)
        #expect(exponent.map { $0 < 2.3 && $0 > 1.6 } == true, "\(String(describing: exponent))")
    }

    @Test func offLearnsNothingAndFrozenAppliesWithoutLearning() {
        let input = walk(seconds: 600)
        let off = Engine(site: site(.off))
        _ = run(off, input)
        #expect(off.calibrationSnapshot().nodes.isEmpty && off.calibration.updates == 0)
        #expect(off.calibration.offset(node: 1) == 0)

        var options = EngineOptions()
        options.selfCalibration.fixOffsetWeight = 1
        let learning = Engine(site: site(.learn), options: options)
        _ = run(learning, input)
        let learned = learning.calibrationSnapshot()
        #expect(learned.nodes.count == 6 && learned.floors.count == 1)
        let frozen = Engine(site: site(.frozen), options: options)
        frozen.restoreCalibration(learned)
        // Restored as learned: same offsets (gauge applied), same exponent.
        #expect(frozen.calibrationSnapshot().nodes.map(\.name) == learned.nodes.map(\.name))
        for (a, b) in zip(frozen.calibrationSnapshot().nodes, learned.nodes) { #expect(abs(a.offset - b.offset) < 1e-9) }
        _ = run(frozen, walk(seconds: 300, seed: 9))
        #expect(frozen.calibration.updates == learned.updates)
        for (a, b) in zip(frozen.calibrationSnapshot().nodes, learned.nodes) { #expect(abs(a.offset - b.offset) < 1e-9) }
        #expect(frozen.calibrationSnapshot().floors == learned.floors)
    }

    @Test func anAnchoredDeviceTeachesFromItsKnownPlace() {
        var anchored = site(.learn)
        let place = Point3(2, 2, 1)
        anchored.devices = [DeviceConfig(id: deviceID, name: "Shelf", point: place)]
        var rng = SeededGenerator(seed: 3)
        let input = simulate(site: twoRoomSite(), from: 0, to: 600, noise: 3, rng: &rng) { _ in place }.map { item in
            var r = item.reading
            if item.node == "e2" { r.rssi = min(r.rssi + 6, -1) }
            return (item.node, r)
        }
        let engine = Engine(site: anchored)
        _ = run(engine, input)
        let offsets = Dictionary(uniqueKeysWithValues: engine.calibrationSnapshot().nodes.map { ($0.name, $0.offset) })
        #expect((offsets["e2"] ?? 0) < -3.5, "\(offsets)")
    }

    @Test func nodeBeaconsTeachTheirReceivers() {
        var beaconing = site(.learn)
        for i in beaconing.nodes.indices { beaconing.nodes[i].beacon = "iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-\(i + 1)" }
        let geometry = SiteGeometry(beaconing)
        let model = PathLoss(exponent: beaconing.positioning.absorption)
        var rng = SeededGenerator(seed: 5)
        let engine = Engine(site: beaconing)
        for step in 0..<300 {
            for (i, from) in beaconing.nodes.enumerated() {
                for (j, to) in beaconing.nodes.enumerated() where i != j {
                    let walls = geometry.wallLoss(floor: 0, from: from.point.xy, to: to.point.xy)
                    var rssi = model.rssi(distance: distance(from.point, to.point), txRef: -59, walls: walls) + 3 * rng.gaussian()
                    if to.name == "e3" { rssi += 6 }
                    engine.ingest(node: to.name, reading: Reading(id: from.beacon!, rssi: Int(rssi.rounded()), t: Double(step), kind: .ibeacon))
                }
            }
        }
        let offsets = Dictionary(uniqueKeysWithValues: engine.calibrationSnapshot().nodes.map { ($0.name, $0.offset) })
        #expect((offsets["e3"] ?? 0) < -3.5, "\(offsets)")
        #expect(engine.deviceCount == 6 && engine.solves == 0, "beacons are not tracked")
    }
}
