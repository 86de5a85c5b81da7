import Lab
import Foundation
import Positioning

/// The table's heading; what it measures and how to read it is in docs/accuracy.md
/// ("Reading the tables"), its history in docs/history/accuracy-2026-11.md.
let walkOracleIntro = """

    ### What a one-moment fit of the model could do on each walk (an oracle, not a locator)

    """

func walkOracleMarkdown(_ rows: [AccuracyRow]) -> String {
    var out = walkOracleIntro
    let locators = walkOracleLocators.map(\.rawValue)
    out += "| walk | moments | " + locators.joined(separator: " | ") + " | "
        + locators.map { "\($0), at the moments" }.joined(separator: " | ") + " | "
        + walkOracleColumns.map { "oracle, \($0)" }.joined(separator: " | ") + " |\n"
    out += "|---|---:|" + String(repeating: "---|", count: 2 * locators.count + walkOracleColumns.count) + "\n"
    for row in rows {
        let whole = walkOracleLocators.map { row.summary($0).map(triple) ?? "–" }
        out += "| \(row.walk) | \(row.oracle.moments) | "
            + (whole + row.oracle.locatorsAtMoments.map(triple) + row.oracle.figures.map(triple)).joined(separator: " | ") + " |\n"
    }
    return out + hindsightMarkdown(rows) + widthsMarkdown(rows) + bootstrapMarkdown(rows) + oracleChecksMarkdown(rows)
}

/// The oracle without its hindsight: what a one-moment fit could do live.
func hindsightMarkdown(_ rows: [AccuracyRow]) -> String {
    var out = "\nThe oracle without its hindsight, on the same moments: the window trailing the moment (the readings of the\n"
    out += "3 s before it, as the engine's), the height fixed at the engine's prior (1.2 m) instead of the true one, and\n"
    out += "both, with each calibration (both: what a one-moment fit at each update could do live with the engine's 3 s\n"
    out += "window; the first two moments' trailing windows hold only 1.5 and 2.5 s of readings).\n\n"
    out += "| walk | held out: trailing window | held out: at 1.2 m | " + walkOracleColumns.map { "\($0): both" }.joined(separator: " | ")
        + " |\n|---|---|---|---|---|---|---|\n"
    for row in rows {
        out += "| \(row.walk) | " + row.oracle.withoutHindsight.map(triple).joined(separator: " | ") + " |\n"
    }
    return out
}

/// The live held-out oracle with other windows than the engine's.
func widthsMarkdown(_ rows: [AccuracyRow]) -> String {
    var out = "\nThe live held-out oracle (trailing window, 1.2 m) with other windows than the engine's 3 s, on the same\n"
    out += "moments (medians in m; a trailing window at the first moments holds less than its width).\n\n"
    out += "| walk | " + walkOracleWidths.map { String(format: "%g s", $0) }.joined(separator: " | ")
        + " |\n|---|" + String(repeating: "---:|", count: walkOracleWidths.count) + "\n"
    for row in rows {
        out += "| \(row.walk) | " + row.oracle.widths.map { metres($0.median) }.joined(separator: " | ") + " |\n"
    }
    return out
}

/// How much of the differences is chance: block-bootstrap intervals.
func bootstrapMarkdown(_ rows: [AccuracyRow]) -> String {
    var out = "\nHow far these medians could move by chance: 90 % intervals from a block bootstrap over the moments (blocks\n"
    out += "of 5 consecutive moments, since the next second's window overlaps this one's; 2,000 resamples, fixed seed),\n"
    out += "for the held-out oracle centred and live (3 s trailing window, 1.2 m), and for each locator's gain over\n"
    out += "them (the oracle's median less the locator's, both on the oracle's moments, resampled together).\n\n"
    out += "| walk | held out, centred | held out, live | " + walkOracleGains.joined(separator: " | ") + " |\n"
    out += "|---|---|---|" + String(repeating: "---|", count: walkOracleGains.count) + "\n"
    func shown(_ value: Double, _ interval: Interval?) -> String {
        metres(value) + (interval.map { " (\(metres($0.low)) to \(metres($0.high)))" } ?? "")
    }
    for row in rows {
        let o = row.oracle
        out += "| \(row.walk) | " + shown(o.figures[0].median, o.intervals.centred) + " | "
            + shown(o.withoutHindsight[2].median, o.intervals.live) + " | "
            + o.intervals.gains.map { shown($0.value, $0.interval) }.joined(separator: " | ") + " |\n"
    }
    return out
}

/// The oracle's choices checked: weights, the readings a receiver needs, the per-receiver exponents.
func oracleChecksMarkdown(_ rows: [AccuracyRow]) -> String {
    var out = "\nThe same moments weighed alike (each receiver's mean counts once, whatever its number of readings), and the\n"
    out += "held-out variant with the reference power free per moment (medians in m); how many receiver-moments hold a\n"
    out += "single reading; and the exponents fitted per receiver on each walk: their range, and the three least\n"
    out += "determined (exponent ± its standard error, from the residuals of the receiver's own line).\n\n"
    out += "| walk | unweighted: " + walkOracleColumns.joined(separator: " / ")
        + " | held out, reference free | receiver-moments with one reading | exponents per receiver | least determined |\n"
    out += "|---|---|---:|---:|---|---|\n"
    for row in rows {
        let o = row.oracle, fit = o.perReceiver, n = fit.exponents.filter(\.isFinite)
        let loose = fit.exponentErrors.indices.sorted { fit.exponentErrors[$0] > fit.exponentErrors[$1] }.prefix(3).map { j in
            let p = row.receivers[j].point
            return "`\(row.receivers[j].name)` " + String(format: "(%.1f, %.1f) %.2f ± %.2f", p.x, p.y, fit.exponents[j], fit.exponentErrors[j])
        }
        out += "| \(row.walk) | " + o.unweighted.map { metres($0.median) }.joined(separator: " / ")
            + " | \(metres(o.heldOutFreeReference.errors.median))" + (o.heldOutFreeReference.unfixed > 0 ? " (\(o.heldOutFreeReference.unfixed) moments without a fix)" : "")
            + " | \(o.singleReadings.count) of \(o.singleReadings.of) | "
            + String(format: "%.2f–%.2f", n.min() ?? .nan, n.max() ?? .nan) + " | " + loose.joined(separator: ", ") + " |\n"
    }
    return out
}
