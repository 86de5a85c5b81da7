import Foundation
import Positioning
import Wire

/// The walk oracle's figures on one real walk (`WalkOracle`): what a one-moment fit of the
/// log-distance model gives with hindsight, under calibrations that have and have not seen the walk.
struct WalkOracleRow {
    var moments: Int
    /// Weighted by counts, receivers with one reading or more, in `walkOracleColumns` order.
    var figures: [ErrorSummary]
    /// The same variants with every receiver's mean weighed alike.
    var unweighted: [ErrorSummary]
    /// The held-out variant on receivers with two readings or more in the window.
    var heldOutTwoReadings: ErrorSummary
    /// The held-out variant with the reference power free per moment.
    var heldOutFreeReference: ErrorSummary
    /// Without the oracle's hindsight: the held-out variant with the window trailing the moment
    /// as the engine's, with the height the engine's prior, with both; and with both the three
    /// self-fitted variants.
    var withoutHindsight: [ErrorSummary]
    /// Receiver-moments with exactly one reading in the window, of all heard.
    var singleReadings: (count: Int, of: Int)
    /// The exponent per receiver fitted on this walk (variant 3), with standard errors.
    var perReceiver: ReceiverPathLoss
}

/// The variants' names in the table, in order.
let walkOracleColumns = ["held out", "self-fitted", "self-fitted, exponent per receiver", "and reference power free per moment"]

/// The oracle on `walk` under its held-out calibration, the calibration fitted on it, and a fit
/// on it with one exponent per receiver (with and without a reference power free per moment).
func walkOracleRow(_ walk: Walk, receivers: [Node], heldOut: Calibration, own: Calibration, site: Site) throws -> WalkOracleRow {
    guard let perReceiver = ReceiverPathLoss.fitPerReceiver(walks: [walk], nodes: receivers), let floor = site.floors.first else {
        throw AccuracyError("cannot fit an exponent per receiver on \(walk.name)")
    }
    let oracle = WalkOracle(nodes: receivers, bounds: (floor.bounds.min.xy, floor.bounds.max.xy))
    let models = [ReceiverPathLoss(heldOut, nodes: receivers), ReceiverPathLoss(own, nodes: receivers), perReceiver, perReceiver]
    let weighted = models.enumerated().map { WalkOracleVariant(model: $1, freeReference: $0 == 3) }
    let unweighted = models.enumerated().map { WalkOracleVariant(model: $1, freeReference: $0 == 3, weighted: false) }
    let checks = [WalkOracleVariant(model: models[0], minimumReadings: 2), WalkOracleVariant(model: models[0], freeReference: true)]
    let z = EngineOptions().deviceHeight ?? 1.2
    let blind = [WalkOracleVariant(model: models[0], lag: 1.5), WalkOracleVariant(model: models[0], height: z)]
        + models.enumerated().map { WalkOracleVariant(model: $1, freeReference: $0 == 3, lag: 1.5, height: z) }
    let errors = oracle.errors(on: walk, variants: weighted + unweighted + checks + blind).map { ErrorSummary(errors: $0) }
    let moments = oracle.moments(of: walk)
    let heard = moments.flatMap(\.counts).filter { $0 > 0 }
    return WalkOracleRow(moments: moments.count, figures: Array(errors[0..<4]), unweighted: Array(errors[4..<8]),
                         heldOutTwoReadings: errors[8], heldOutFreeReference: errors[9], withoutHindsight: Array(errors[10...]),
                         singleReadings: (heard.filter { $0 == 1 }.count, heard.count), perReceiver: perReceiver)
}

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
    robust loss. The search: a grid of 0.1 m over the floor, then Levenberg–Marquardt and a compass search (to
    1 mm) from the three best distinct grid points (a unit test checks at every tenth moment of straight_02 that no
    point of a grid four times finer than a 0.2 m search's fits better). The error is the 2-D distance to the true
    position at the moment. The model's calibration: **held out** is the one every locator gets (fitted on the
    other four walks: one exponent, a reference power, one offset per receiver); **self-fitted** the same fit on
    this walk itself; then this walk's own fit with **one exponent per receiver** as well (each receiver its own
    plain least-squares line of RSSI on −10·log10 d over the walk's readings at their true positions); and that
    model with the **reference power free per moment** (one shift of every receiver's intercept fitted with the
    position: it absorbs what moves every receiver alike, such as the carrier's body). The last three have seen
    the answer. `default` and `nelder-mead` are the table above's (their updates every 0.5 s, tracked, against
    the truth at each update).


    """

func walkOracleMarkdown(_ rows: [AccuracyRow]) -> String {
    var out = walkOracleIntro
    out += "| walk | moments | default | nelder-mead | " + walkOracleColumns.map { "oracle, \($0)" }.joined(separator: " | ") + " |\n"
    out += "|---|---:|---|---|" + String(repeating: "---|", count: walkOracleColumns.count) + "\n"
    for row in rows {
        let locators = [LocatorKind.default, .nelderMead].map { row.summary($0).map(triple) ?? "–" }
        out += "| \(row.walk) | \(row.oracle.moments) | " + (locators + row.oracle.figures.map(triple)).joined(separator: " | ") + " |\n"
    }
    return out + hindsightMarkdown(rows) + oracleChecksMarkdown(rows)
}

/// The oracle without its hindsight: what a one-moment fit could do live.
func hindsightMarkdown(_ rows: [AccuracyRow]) -> String {
    var out = "\nThe oracle without its hindsight, on the same moments: the window trailing the moment (the readings of the\n"
    out += "3 s before it, as the engine's), the height fixed at the engine's prior (1.2 m) instead of the true one, and\n"
    out += "both, with each calibration (both: what a one-moment fit at each update could do live; the first two\n"
    out += "moments' trailing windows hold only 1.5 and 2.5 s of readings).\n\n"
    out += "| walk | held out: trailing window | held out: at 1.2 m | " + walkOracleColumns.map { "\($0): both" }.joined(separator: " | ")
        + " |\n|---|---|---|---|---|---|---|\n"
    for row in rows {
        out += "| \(row.walk) | " + row.oracle.withoutHindsight.map(triple).joined(separator: " | ") + " |\n"
    }
    return out
}

/// The oracle's choices checked: weights, the readings a receiver needs, the per-receiver exponents.
func oracleChecksMarkdown(_ rows: [AccuracyRow]) -> String {
    var out = "\nThe same moments weighed alike (each receiver's mean counts once, whatever its number of readings), and the\n"
    out += "held-out variant on receivers with at least two readings in the window, and with the reference power free per\n"
    out += "moment (medians in m); and the exponents fitted per receiver on each walk: their range, and the three least\n"
    out += "determined (exponent ± its standard error, from the residuals of the receiver's own line).\n\n"
    out += "| walk | unweighted: " + walkOracleColumns.joined(separator: " / ")
        + " | held out, ≥ 2 readings | held out, reference free | receiver-moments with one reading | exponents per receiver | least determined |\n"
    out += "|---|---|---:|---:|---:|---|---|\n"
    for row in rows {
        let o = row.oracle, fit = o.perReceiver, n = fit.exponents.filter(\.isFinite)
        let loose = fit.exponentErrors.indices.sorted { fit.exponentErrors[$0] > fit.exponentErrors[$1] }.prefix(3).map { j in
            let p = row.receivers[j].point
            return "`\(row.receivers[j].name)` " + String(format: "(%.1f, %.1f) %.2f ± %.2f", p.x, p.y, fit.exponents[j], fit.exponentErrors[j])
        }
        out += "| \(row.walk) | " + o.unweighted.map { metres($0.median) }.joined(separator: " / ")
            + " | \(metres(o.heldOutTwoReadings.median)) | \(metres(o.heldOutFreeReference.median)) | \(o.singleReadings.count) of \(o.singleReadings.of) | "
            + String(format: "%.2f–%.2f", n.min() ?? .nan, n.max() ?? .nan) + " | " + loose.joined(separator: ", ") + " |\n"
    }
    return out
}
