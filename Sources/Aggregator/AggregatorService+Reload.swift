import Positioning
import SiteModel
import YAML

extension AggregatorService {
    /// SIGHUP: reads the calibration file again (`settings.calibrationPath`) onto the site as it
    /// was started, and hands it to the engine on the work queue: tracks, rooms, visits and
    /// everything else stay. A file that cannot be read, has errors or does not fit the running
    /// site is refused (the old calibration kept), logged with each problem, and counted in
    /// `whereabouts_calibration_reloads_total{outcome="refused"}`.
    /// Returns whether it was applied.
    @discardableResult
    public func reloadCalibration() -> Bool {
        guard let path = settings.calibrationPath, let base = settings.uncalibratedSite else {
            log("SIGHUP: no calibration file to reload (none was applied at start; the site and options are read at start only)")
            return false
        }
        let (site, problems) = CalibratedSite.applying(calibrationAt: path, to: base, sitePath: settings.sitePath ?? "the site")
        for p in problems { log("\(path):\(p)") }
        guard let site else { return refused(path, "\(problems.filter { $0.severity == .error }.count) error(s)") }
        return work.sync {
            do {
                try core.engine.recalibrate(site)
            } catch {
                return refused(path, "\(error)")
            }
            metrics.calibrationReloads.labels("applied").add()
            log("SIGHUP: calibration \(path) reloaded: absorption \(site.positioning.absorption), "
                + "\(site.radioMap?.layers.count ?? 0) radio map layers; tracks and visits kept")
            return true
        }
    }

    private func refused(_ path: String, _ why: String) -> Bool {
        metrics.calibrationReloads.labels("refused").add()
        log("SIGHUP: calibration \(path) refused (\(why)); the one loaded before stays in use")
        return false
    }
}
