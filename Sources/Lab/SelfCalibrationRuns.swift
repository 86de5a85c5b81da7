import Positioning
import Wire
import SiteModel

/// The default locator on a walk with self-calibration: a fresh engine learns over `learnFrom`
/// (each walk replayed in turn, the learned state carried from one to the next, as a running
/// aggregator would have carried it), then the walk is scored with that state as its start,
/// still learning (`mode` `.learn`) or not (`.frozen`).
///
/// A device's own power (`TxLearning`) is not carried: it is the device's, and each replay
/// ends with the device leaving. With `learnFrom` empty the walk is scored as the engine first
/// hears it, learning as it goes.
public func selfCalibratedRun(_ walk: Walk, site: Site, learnFrom: [Walk], mode: SelfCalibrationMode = .learn,
                              step: Double = 0.5, options: EngineOptions = EngineOptions())
    -> (summary: ErrorSummary, learned: SelfCalibrationSnapshot) {
    var options = options
    options.updateInterval = step
    var learning = site
    learning.positioning.selfCalibration = .learn
    var state: SelfCalibrationSnapshot?
    for other in learnFrom {
        let engine = Engine(site: learning, locator: .default, options: options)
        if let state { engine.restoreCalibration(state) }
        _ = replay(other.readings, through: engine, step: step)
        state = engine.calibrationSnapshot()
    }
    var scored = site
    scored.positioning.selfCalibration = mode
    let engine = Engine(site: scored, locator: .default, options: options)
    if let state { engine.restoreCalibration(state) }
    let output = replay(walk.readings, through: engine, step: step)
    return (ErrorSummary(errors: errors(of: output, on: walk)), state ?? engine.calibrationSnapshot())
}
