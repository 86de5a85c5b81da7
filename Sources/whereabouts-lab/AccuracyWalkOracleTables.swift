import Lab
import Foundation
import Positioning

/// What the oracle is, above its table.
let walkOracleIntro = """

    ### What a one-moment fit of the model could do on each walk (an oracle, not a locator)

    The real walks' counterpart of the simulated sites' oracle, with hindsight. At each whole second from 1.5 s
    after a walk's first reading to 1.5 s before its last (so every window lies inside the recording): each
    receiver's **mean** RSSI over its readings within ±1.5 s of that moment (a 3 s window, as the engine's, but
    centred: no lag), every receiver with at least one reading there, and the maximum-likelihood 2-D position under
    independent Gaussian errors in dB per reading (least squares on the means, each weighted by its number of
    readings) of the log-distance model (`rssi = b_j − 10·n_j·log10 d`, d the 3-D distance to the receiver, at
    least 0.1 m) at the beacon's **true height** at that moment, within the floor's bounds; no tracker, no prior, no
    robust loss. The search: a grid of 0.1 m over the floor, then a compass search (from 2.5 cm down to 1 mm)
    from the three best distinct grid points (a unit test checks at every tenth moment of straight_02 that no
    point of a grid four times finer than a 0.2 m search's fits better). The error is the 2-D distance to the true
    position at the moment. The model's calibration: **held out** is the one every locator gets (fitted on the
    other four walks: one exponent, a reference power, one offset per receiver); **self-fitted** the same fit on
    this walk itself; then this walk's own fit with **one exponent per receiver** as well (each receiver its own
    plain least-squares line of RSSI on −10·log10 d over the walk's readings at their true positions); and that
    model with the **reference power free per moment** (one shift of every receiver's intercept fitted with the
    position: it absorbs what moves every receiver alike, such as the carrier's body; a moment with fewer than
    three receivers has no such fix, counted below where there are any). The last three have seen the answer. `default` and
    `nelder-mead` are the table above's twice: over the whole walk (their updates every 0.5 s, tracked, against
    the truth at each update), and on the oracle's moments (at each, the locator's last update at or before it,
    against the truth at the moment), which is what the comparisons below use.


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
