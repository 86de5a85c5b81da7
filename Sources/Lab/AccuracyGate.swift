/// The accuracy gate: the current code's figures against committed thresholds.
///
/// A threshold is a figure's value when it was last earned plus a stated tolerance, in the
/// direction that is worse for that metric (`AccuracyFigures.Metric.lowerIsBetter`): a
/// lower-is-better figure fails above its threshold, a higher-is-better one below it.
/// Tightening a threshold is done in the commit whose change earns it.
public enum AccuracyGate {
    /// How much worse than when it was earned a figure may get before the gate fails: run to
    /// run the figures are deterministic (seeded simulation, fixed walks), so the tolerance is
    /// for changes that are no regression (ulps, a reordered sum), not for noise.
    public static func tolerance(_ metric: AccuracyFigures.Metric) -> Double {
        switch metric {
        case .median, .p90, .p95: 0.02  // m
        case .roomErrors: 0.3  // percentage points
        case .flips: 0.3  // flips per device-hour still
        case .doorDelay: 0.2  // s
        case .doorsFound: 1  // percentage points
        }
    }

    /// Thresholds from `figures`: each value moved by its metric's tolerance toward worse.
    public static func thresholds(from figures: AccuracyFigures) -> AccuracyFigures {
        var out = AccuracyFigures()
        for key in figures.keys {
            guard let value = figures.values[key], let metric = AccuracyFigures.metric(of: key) else { continue }
            let t = tolerance(metric)
            out.set(key, metric.lowerIsBetter ? value + t : max(value - t, 0))
        }
        return out
    }

    /// One line per figure worse than its threshold, or missing from the current run; empty
    /// when the gate passes. Figures without a threshold are not judged (a new scenario gets
    /// its thresholds in the commit that adds it).
    public static func failures(current: [String: Double], thresholds: [String: Double]) -> [String] {
        var out: [String] = []
        for key in thresholds.keys.sorted() {
            guard let limit = thresholds[key] else { continue }
            guard let metric = AccuracyFigures.metric(of: key) else {
                out.append("\(key): not a known metric")
                continue
            }
            guard let value = current[key] else {
                out.append("\(key): missing from this run (threshold \(fixed(limit, 3)))")
                continue
            }
            let worse = metric.lowerIsBetter ? value > limit : value < limit
            if worse {
                out.append("\(key): \(fixed(value, 3)) is worse than its threshold \(fixed(limit, 3)) ("
                           + (metric.lowerIsBetter ? "lower" : "higher") + " is better)")
            }
        }
        return out
    }

    /// The thresholds file: what it is, each metric's tolerance, and the thresholds.
    public static func thresholdsJSON(from figures: AccuracyFigures) -> String {
        var out = "{\n  \"about\": " + quoted("The accuracy gate's thresholds (make accuracy-gate): each figure as it was earned plus its "
            + "metric's tolerance, toward worse. Written by whereabouts-lab gate --write-thresholds; tighten in the commit that earns it.")
        out += ",\n  \"tolerances\": {\n"
        let metrics = AccuracyFigures.Metric.allCases
        for (i, m) in metrics.enumerated() {
            out += "    " + quoted(m.rawValue) + ": {\"tolerance\": " + fixed(tolerance(m), 2)
                + ", \"better\": " + quoted(m.lowerIsBetter ? "lower" : "higher") + "}" + (i + 1 < metrics.count ? ",\n" : "\n")
        }
        let body = thresholds(from: figures).json()
        // `json()` is `{\n  "figures": …}`: its members follow the tolerances.
        return out + "  },\n" + body.dropFirst(2)
    }
}
