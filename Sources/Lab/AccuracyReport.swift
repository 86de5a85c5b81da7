import Positioning
import SiteModel
import Wire

/// The project's accuracy bars on simulated sites (median < 0.5 m, p95 < 1.2 m, room errors < 3 %,
/// under one flip an hour while still, ahead of both baselines), and the markdown that reports them.
public enum AccuracyBars {
    public static let median = 0.5
    public static let p95 = 1.2
    public static let roomErrors = 0.03
    public static let flipsPerHour = 1.0

    /// Each bar the default's score misses on one row, in words; empty when all are met.
    /// `baselines` are the other locators' scores on the same readings.
    public static func missed(_ s: SiteScore, baselines: [(LocatorKind, SiteScore)]) -> [String] {
        var out: [String] = []
        if !(s.errors.median < median) { out.append("median ≥ \(fixed(median, 1)) m") }
        if !(s.errors.p95 < p95) { out.append("p95 ≥ \(fixed(p95, 1)) m") }
        if s.roomChecks > 0, !(s.roomErrorRate < roomErrors) { out.append("room errors ≥ 3 %") }
        if s.stillSeconds > 0, !(s.flipsPerHour < flipsPerHour) { out.append("≥ 1 flip/h still") }
        for (kind, b) in baselines where !ahead(s, of: b) { out.append("not ahead of \(kind.rawValue)") }
        return out
    }

    /// Lower median and p95, and no more room errors.
    public static func ahead(_ s: SiteScore, of b: SiteScore) -> Bool {
        s.errors.median < b.errors.median && s.errors.p95 < b.errors.p95
            && (s.roomChecks == 0 || s.roomErrorRate <= b.roomErrorRate)
    }
}

extension ScenarioAccuracy {
    /// The default's missed bars on this scenario, pooled over its devices.
    public var missedBars: [String] {
        AccuracyBars.missed(score(.default), baselines: [(.nearest, score(.nearest)), (.nelderMead, score(.nelderMead))])
    }
}

/// The markdown for the simulated sites: one row per scenario and locator, one per device,
/// and the default's room confusion matrices.
public func simulatedMarkdown(_ runs: [ScenarioAccuracy]) -> String {
    var out = "## Simulated sites\n\n"
    out += "Each scenario in `tools/scenarios/` is simulated on its site in `tools/sites/` (seeded, so every run is the\n"
    out += "same) and its readings go through every locator in the same run. Position error is 2-D, in metres, over every\n"
    out += "update while the device is present; room errors count updates whose room is not the true one (a true position\n"
    out += "on the line two rooms share belongs to both), and in brackets the part of them within \(fixed(SiteScore.changeSpan, 0)) s after the\n"
    out += "device's true room changed (a door, the stairs, a return: the lag of a change; the rest are wrong stays); flips are room\n"
    out += "enters during still periods of a minute or more (after \(fixed(SiteScore.settle, 0)) s to settle), per device-hour still;\n"
    out += "door delay is from the true crossing into a room (a stay of \(fixed(SiteScore.lasting, 0)) s or more) to the engine's\n"
    out += "enter into it (median / p90, and how many crossings got no enter within \(fixed(SiteScore.window, 0)) s).\n\n"
    out += "| scenario | locator | median / p90 / p95 (m) | room errors | flips / h still | door delay (s) | bars (default) |\n"
    out += "|---|---|---|---:|---:|---|---|\n"
    for run in runs {
        for kind in LocatorKind.allCases { out += "| \(run.name) | \(kind.rawValue) | " + scoreCells(run, kind) }
    }
    out += "\n### Per device\n\n| scenario | device | default | nearest | nelder-mead |\n|---|---|---|---|---|\n"
    for run in runs {
        for (d, id) in run.devices.enumerated() {
            out += "| \(run.name) | `\(id)`" + (run.siteName(of: id).map { " (\($0))" } ?? "") + " |"
            for s in run.deviceScores[d] {
                out += " \(fixed(s.errors.median, 2)) / \(fixed(s.errors.p95, 2)) m, \(percent(s.roomErrorRate)) rooms, \(s.stillFlips) flips |"
            }
            out += "\n"
        }
    }
    out += "\n### Room confusion (default locator; rows: true room, columns: reported room; updates)\n"
    for run in runs { out += "\n**\(run.name)**\n\n" + confusionTable(run.score(.default)) }
    return out
}

/// The main table again for the scenarios run on other seeds: the same walks and devices,
/// another draw of shadowing, fading and receiver offsets.
public func reseededMarkdown(_ sets: [(offset: UInt64, runs: [ScenarioAccuracy])]) -> String {
    var out = "### The same scenarios on other seeds\n\n"
    out += "Each scenario again with its `seed` plus the offset: the same paths, another draw of the shadowing field,\n"
    out += "fading, losses and receiver offsets. They show how much of each figure above is the committed seed's luck.\n"
    out += "Nothing in the default was tuned on these seeds; seed + 1 was looked at beside the committed seeds while\n"
    out += "the stay test (tried and dropped) was built (see \"What was tuned on what\").\n\n"
    out += "| scenario | seed | locator | median / p90 / p95 (m) | room errors | flips / h still | door delay (s) | bars (default) |\n"
    out += "|---|---|---|---|---:|---:|---|---|\n"
    for set in sets {
        for run in set.runs {
            for kind in LocatorKind.allCases { out += "| \(run.name) | +\(set.offset) | \(kind.rawValue) | " + scoreCells(run, kind) }
        }
    }
    return out
}

/// A table row's cells after its names: errors, rooms, flips, door delay, and for the default
/// locator the bars it misses.
private func scoreCells(_ run: ScenarioAccuracy, _ kind: LocatorKind) -> String {
    let s = run.score(kind)
    var bars = ""
    if kind == .default {
        let missed = run.missedBars
        bars = missed.isEmpty ? "all met" : "**not met:** " + missed.joined(separator: ", ")
    }
    return scoreFigures(s) + " | \(bars) |\n"
}

/// A score's cells as the tables print them: errors, rooms, flips, door delay (no outer bars).
public func scoreFigures(_ s: SiteScore) -> String {
    "\(triple(s.errors)) | \(percent(s.roomErrorRate)) (\(s.roomChecks > 0 ? fixed(s.roomErrorRateAtChanges * 100, 1) : "–")) | "
        + "\(fixed(s.flipsPerHour, 2)) (\(s.stillFlips) in \(fixed(s.stillSeconds / 3600, 2)) h) | "
        + "\(fixed(s.delay.median, 1)) / \(fixed(s.delay.p90, 1)), \(s.missed) of \(s.crossings) missed"
}

func confusionTable(_ s: SiteScore) -> String {
    let truths = s.confusion.keys.sorted()
    var reported = Set(truths)
    for row in s.confusion.values { reported.formUnion(row.keys) }
    let columns = reported.sorted()
    var out = "| true \\ reported |" + columns.map { " \($0) |" }.joined() + "\n|---|" + columns.map { _ in "---:|" }.joined() + "\n"
    for t in truths {
        out += "| \(t) |" + columns.map { c in
            let n = s.confusion[t]?[c] ?? 0
            return c == t ? " **\(n)** |" : " \(n == 0 ? "·" : String(n)) |"
        }.joined() + "\n"
    }
    return out
}

/// Median / p90 / p95 as the tables print them (m, two decimals); "–" for no errors at all.
public func triple(_ e: ErrorSummary) -> String {
    e.count == 0 ? "–" : "\(fixed(e.median, 2)) / \(fixed(e.p90, 2)) / \(fixed(e.p95, 2))"
}

/// A rate as the tables print it: a percentage with one decimal, "–" when there is none.
public func percent(_ rate: Double) -> String { rate.isNaN ? "–" : fixed(rate * 100, 1) + " %" }
