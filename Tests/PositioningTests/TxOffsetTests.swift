import Testing
@testable import Positioning
import Wire
import SiteModel

/// A device whose real power is not what the engine assumes: its fixes' mean residual
/// teaches the engine the difference, and positions improve.
struct TxOffsetTests {
    /// Readings of a device sending `quieter` dB below the site's reference power, still at `truth`.
    private func readings(quieter: Double, truth: Point3, seed: UInt64) -> [(node: String, reading: Reading)] {
        var rng = SeededGenerator(seed: seed)
        let quiet = simulate(site: twoRoomSite(), from: 0, to: 600, noise: 3, rng: &rng) { _ in truth }
        return quiet.map { item in
            var r = item.reading
            r.rssi -= Int(quieter)
            return (item.node, r)
        }
    }

    /// The mean error over the last minute of updates (120 of them): one update's error is one
    /// draw of the noise.
    private func lastError(_ output: [EngineOutput], truth: Point3) -> Double? {
        let errors = updates(output).suffix(120).map { (($0.x - truth.x) * ($0.x - truth.x) + ($0.y - truth.y) * ($0.y - truth.y)).squareRoot() }
        return errors.isEmpty ? nil : errors.reduce(0, +) / Double(errors.count)
    }

    @Test func aQuieterDeviceIsLearnedAndPlacedCloserToTheTruth() {
        let truth = Point3(1.5, 1.0, 1.0)
        let input = readings(quieter: 8, truth: truth, seed: 21)
        let learning = Engine(site: twoRoomSite())
        let learned = lastError(run(learning, input), truth: truth)
        var fixed = EngineOptions()
        fixed.txLearning = 0
        let unlearned = lastError(run(Engine(site: twoRoomSite(), options: fixed), input), truth: truth)
        // Most of the 8 dB is learned (the rest hides in the position), and it shows.
        #expect(learning.devices[0].txOffset < -5 && learning.devices[0].txOffset > -8.5, "\(learning.devices[0].txOffset)")
        if let learned, let unlearned { #expect(learned < unlearned - 0.2, "learned \(learned) m, fixed \(unlearned) m") }
        #expect(learned.map { $0 < 0.5 } == true)
    }

    @Test func theLearnedPowerIsForgottenWhenTheDeviceGoesAway() {
        let engine = Engine(site: twoRoomSite())
        let input = readings(quieter: 8, truth: Point3(2, 2, 1), seed: 4)
        _ = run(engine, input)
        #expect(engine.devices[0].txOffset < -3)
        var output: [EngineOutput] = []
        engine.advance(to: 700, into: &output)
        #expect(events(output).contains { $0.type == .exit && $0.isRoom })
        #expect(engine.devices[0].txOffset == 0)
    }
}
