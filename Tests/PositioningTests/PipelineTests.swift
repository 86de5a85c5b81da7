import Testing
@testable import Positioning
import Wire
import SiteModel

/// The pipeline switches stages beside the solver: each preset is the same engine with its
/// locator and the stages its baseline stands for, and a stage switched off is off.
struct PipelineTests {
    private func input(seed: UInt64) -> [(node: String, reading: Reading)] {
        var rng = SeededGenerator(seed: seed)
        return simulate(site: twoRoomSite(), from: 0, to: 120, noise: 3, rng: &rng) { t in
            Point3(1 + 0.02 * t, 1.5, 1)
        }
    }

    private func positions(_ output: [EngineOutput]) -> [Double] { updates(output).flatMap { [$0.x, $0.y] } }

    @Test(arguments: LocatorKind.allCases)
    func aLocatorKindRunsItsPreset(kind: LocatorKind) {
        let readings = input(seed: 5)
        let byKind = Engine(site: twoRoomSite(), locator: kind)
        let byPipeline = Engine(site: twoRoomSite(), pipeline: kind.pipeline)
        #expect(byKind.pipeline == kind.pipeline && byKind.locatorKind == kind)
        let a = positions(run(byKind, readings)), b = positions(run(byPipeline, readings))
        #expect(!a.isEmpty && a == b)
    }

    @Test func theBaselinesRunWithoutTheDefaultsExtraStages() {
        #expect(Pipeline.nearest == Pipeline(locator: .nearest, tracks: false, stillMean: false, txLearning: false))
        #expect(Pipeline.nelderMead == Pipeline(locator: .nelderMead, tracks: true, stillMean: false, txLearning: false))
        #expect(Pipeline.default == Pipeline(locator: .default, tracks: true, stillMean: true, txLearning: true, selfCalibration: true))
    }

    /// Power learning off in the pipeline is the same as its time constant at 0, and a quieter
    /// device teaches an offset only with it on.
    @Test func txLearningOffInThePipelineLearnsNothing() {
        var rng = SeededGenerator(seed: 21)
        let quiet = simulate(site: twoRoomSite(), from: 0, to: 300, noise: 3, rng: &rng) { _ in Point3(1.5, 1, 1) }
            .map { item -> (node: String, reading: Reading) in
                var r = item.reading
                r.rssi -= 8
                return (item.node, r)
            }
        var off = Pipeline.default
        off.txLearning = false
        let withoutStage = Engine(site: twoRoomSite(), pipeline: off)
        var zero = EngineOptions()
        zero.transmitPower.timeConstant = 0
        let withoutTime = Engine(site: twoRoomSite(), options: zero)
        let learning = Engine(site: twoRoomSite())
        let a = positions(run(withoutStage, quiet)), b = positions(run(withoutTime, quiet))
        _ = run(learning, quiet)
        #expect(!a.isEmpty && a == b)
        #expect(withoutStage.devices[0].txOffset == 0)
        #expect(learning.devices[0].txOffset < -3)
    }

    /// The still mean off leaves the track as the report; on, a still device is reported elsewhere
    /// than its track once settled.
    @Test func theStillMeanIsAStageOfItsOwn() {
        var rng = SeededGenerator(seed: 9)
        let still = simulate(site: twoRoomSite(), from: 0, to: 120, noise: 3, rng: &rng) { _ in Point3(2, 1.5, 1) }
        var off = Pipeline.default
        off.stillMean = false
        let plain = Engine(site: twoRoomSite(), pipeline: off)
        _ = run(plain, still)
        #expect(plain.devices[0].track.still == nil)
        #expect(plain.devices[0].track.reported == plain.devices[0].track.position)
        let averaged = Engine(site: twoRoomSite())
        _ = run(averaged, still)
        #expect(averaged.devices[0].track.still != nil)
        #expect(averaged.devices[0].track.reported != averaged.devices[0].track.position)
    }

    /// The names from before the stages had options read and write the stages' values.
    @Test func theFlatNamesAreTheStagesValues() {
        var o = EngineOptions()
        o.holdLimit = 1; o.roomEvidence = 5; o.dwell = 7; o.txLearning = 30; o.acceleration = 0.2; o.stillSettle = .infinity
        #expect(o.hold.limit == 1 && o.room.evidence == 5 && o.zones.dwell == 7)
        #expect(o.transmitPower.timeConstant == 30 && o.tracker.acceleration == 0.2 && o.stillMean.settle == .infinity)
        o.room.farRoomFactor = 3
        #expect(o.farRoomDwellFactor == 3)
        #expect(EngineOptions() == EngineOptions())
    }
}
