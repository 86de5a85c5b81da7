import Testing
import Lab
import Positioning

/// The accuracy gate's comparison: each figure against its threshold, in its metric's direction.
struct AccuracyGateTests {
    static func figures(_ pairs: [(String, Double)]) -> AccuracyFigures {
        var f = AccuracyFigures()
        for (k, v) in pairs { f.set(k, v) }
        return f
    }

    @Test func thresholdsMoveEachFigureTowardWorseByItsTolerance() {
        let earned = Self.figures([("scenario/flat/default/median_m", 1.25), ("scenario/flat/default/doors_found_pct", 92),
                                   ("scenario/flat/default/room_errors_pct", 9.1)])
        let t = AccuracyGate.thresholds(from: earned).values
        #expect(t["scenario/flat/default/median_m"] == 1.25 + AccuracyGate.tolerance(.median))
        #expect(t["scenario/flat/default/doors_found_pct"] == 92 - AccuracyGate.tolerance(.doorsFound))
        #expect(t["scenario/flat/default/room_errors_pct"] == 9.1 + AccuracyGate.tolerance(.roomErrors))
    }

    @Test func aFigureWorseThanItsThresholdIsNamedInEitherDirection() {
        let thresholds = ["walk/straight_01/default/median_m": 1.0, "scenario/house/default/doors_found_pct": 90.0,
                          "scenario/house/default/p95_m": 2.0]
        let current = ["walk/straight_01/default/median_m": 1.01, "scenario/house/default/doors_found_pct": 89.5,
                       "scenario/house/default/p95_m": 1.5]
        let failures = AccuracyGate.failures(current: current, thresholds: thresholds)
        #expect(failures.count == 2, "\(failures)")
        #expect(failures.contains { $0.hasPrefix("walk/straight_01/default/median_m: 1.010 is worse than its threshold 1.000") })
        #expect(failures.contains { $0.hasPrefix("scenario/house/default/doors_found_pct: 89.500") && $0.hasSuffix("(higher is better)") })
    }

    @Test func betterOrEqualPassesAndAMissingFigureFails() {
        let thresholds = ["scenario/office/nearest/median_m": 2.0, "scenario/office/default/flips_per_device_hour_still": 0.3]
        #expect(AccuracyGate.failures(current: ["scenario/office/nearest/median_m": 2.0,
                                                "scenario/office/default/flips_per_device_hour_still": 0], thresholds: thresholds).isEmpty)
        let missing = AccuracyGate.failures(current: ["scenario/office/nearest/median_m": 1.0], thresholds: thresholds)
        #expect(missing == ["scenario/office/default/flips_per_device_hour_still: missing from this run (threshold 0.300)"])
    }

    @Test func jsonHoldsEveryFiniteFigureAndNoOther() {
        var f = Self.figures([("scenario/a/default/median_m", 0.5), ("scenario/a/default/p90_m", .nan)])
        f.set("scenario/a/default/median_m", 0.25)
        #expect(f.keys == ["scenario/a/default/median_m"])
        #expect(f.json() == "{\n  \"figures\": {\n    \"scenario/a/default/median_m\": 0.250\n  }\n}\n")
        #expect(AccuracyFigures.metric(of: "walk/w/nearest/p95_m") == .p95)
        #expect(AccuracyFigures.metric(of: "walk/w/nearest/speed") == nil)
    }
}
