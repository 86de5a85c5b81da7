import Testing
import SiteModel
@testable import Positioning

/// `Engine.recalibrate` (SIGHUP) takes the new file's values everywhere they are kept: the
/// model, and self-calibration, which starts again from the new absorption.
@Suite struct RecalibrateTests {
    @Test func selfCalibrationStartsAgainFromTheNewAbsorption() throws {
        var site = twoRoomSite()
        site.positioning.absorption = 2.7
        let engine = Engine(site: site, locator: .default, options: EngineOptions())
        #expect(engine.selfCalibration.absorption == 2.7)
        var calibrated = site
        calibrated.positioning.absorption = 3.1
        try engine.recalibrate(calibrated)
        #expect(engine.model.exponent == 3.1)
        #expect(engine.selfCalibration.absorption == 3.1)
        #expect(engine.selfCalibration.mode == site.positioning.selfCalibration)
        #expect(!engine.selfCalibration.fixesTeachExponent)
    }
}
