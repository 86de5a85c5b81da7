import Positioning
import Wire

/// The figures `make accuracy` writes to docs/accuracy.json and the accuracy gate compares
/// with its thresholds: per scenario (committed seed) and per real walk, for every locator.
///
/// Each figure has a flat key, `scenario/<name>/<locator>/<metric>` or
/// `walk/<name>/<locator>/<metric>`, so a failing figure is named in one string. A figure that
/// does not apply (no room on a real walk, no still time) is absent, never a made-up number.
public struct AccuracyFigures: Sendable, Equatable {
    /// What a figure measures, and which way is better.
    public enum Metric: String, Sendable, CaseIterable {
        case median = "median_m", p90 = "p90_m", p95 = "p95_m"
        case roomErrors = "room_errors_pct"
        case flips = "flips_per_device_hour_still"
        case doorDelay = "door_delay_median_s"
        case doorsFound = "doors_found_pct"

        /// Lower is better for every figure but the share of door crossings that got an enter.
        public var lowerIsBetter: Bool { self != .doorsFound }
    }

    /// Key → value, in the order added.
    public private(set) var keys: [String] = []
    public private(set) var values: [String: Double] = [:]

    public init() {}

    public mutating func set(_ key: String, _ value: Double) {
        guard value.isFinite else { return }
        if values[key] == nil { keys.append(key) }
        values[key] = value
    }

    /// Every locator's figures on one scenario.
    public mutating func add(scenario run: ScenarioAccuracy) {
        for kind in LocatorKind.allCases {
            let s = run.score(kind), base = "scenario/\(run.name)/\(kind.rawValue)/"
            add(errors: s.errors, base: base)
            if s.roomChecks > 0 { set(base + Metric.roomErrors.rawValue, 100 * s.roomErrorRate) }
            if s.stillSeconds > 0 { set(base + Metric.flips.rawValue, s.flipsPerHour) }
            if !s.delays.isEmpty { set(base + Metric.doorDelay.rawValue, s.delay.median) }
            if s.crossings > 0 { set(base + Metric.doorsFound.rawValue, 100 * Double(s.crossings - s.missed) / Double(s.crossings)) }
        }
    }

    /// One locator's position error on one real walk (the walks have no rooms).
    public mutating func add(walk: String, locator: LocatorKind, errors: ErrorSummary) {
        add(errors: errors, base: "walk/\(walk)/\(locator.rawValue)/")
    }

    private mutating func add(errors: ErrorSummary, base: String) {
        set(base + Metric.median.rawValue, errors.median)
        set(base + Metric.p90.rawValue, errors.p90)
        set(base + Metric.p95.rawValue, errors.p95)
    }

    /// The metric a key ends with.
    public static func metric(of key: String) -> Metric? {
        key.split(separator: "/").last.flatMap { Metric(rawValue: String($0)) }
    }

    /// `{"figures": {key: value, …}}`, one figure a line, three decimals.
    public func json() -> String {
        var out = "{\n  \"figures\": {\n"
        for (i, key) in keys.enumerated() {
            out += "    " + quoted(key) + ": " + fixed(values[key] ?? .nan, 3) + (i + 1 < keys.count ? ",\n" : "\n")
        }
        return out + "  }\n}\n"
    }
}

/// A JSON string literal (JSON's string syntax).
func quoted(_ text: String) -> String {
    var writer = JSONWriter(capacity: text.utf8.count + 2)
    writer.value(text)
    return writer.string
}
