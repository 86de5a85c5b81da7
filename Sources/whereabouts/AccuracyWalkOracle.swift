import Foundation
import Positioning
import Wire
import SiteModel

/// The walk oracle's figures on one real walk (`WalkOracle`): what a one-moment fit of the
/// log-distance model gives with hindsight, under calibrations that have and have not seen the walk.
struct WalkOracleRow {
    var moments: Int
    /// Weighted by counts, receivers with one reading or more, in `walkOracleColumns` order.
    var figures: [ErrorSummary]
    /// The same variants with every receiver's mean weighed alike.
    var unweighted: [ErrorSummary]
    /// The held-out variant with the reference power free per moment, and the moments it had
    /// too few receivers for a fix.
    var heldOutFreeReference: (errors: ErrorSummary, unfixed: Int)
    /// Without the oracle's hindsight: the held-out variant with the window trailing the moment
    /// as the engine's, with the height the engine's prior, with both; and with both the three
    /// self-fitted variants.
    var withoutHindsight: [ErrorSummary]
    /// The held-out variant live (trailing window, the engine's height) with each of
    /// `walkOracleWidths` as its window, on the same moments.
    var widths: [ErrorSummary]
    /// `default` and `nelder-mead` on the oracle's moments: at each, its last update at or
    /// before the moment against the truth at the moment.
    var locatorsAtMoments: [ErrorSummary]
    /// 90 % block-bootstrap intervals (`BlockBootstrap`): the held-out medians centred and live,
    /// and each locator's gain (at the moments) over each of them, in `walkOracleGains` order.
    var intervals: (centred: Interval?, live: Interval?, gains: [(value: Double, interval: Interval?)])
    /// Receiver-moments with exactly one reading in the window, of all heard.
    var singleReadings: (count: Int, of: Int)
    /// The exponent per receiver fitted on this walk (variant 3), with standard errors.
    var perReceiver: ReceiverPathLoss
}

typealias Interval = (low: Double, high: Double)

/// The variants' names in the table, in order.
let walkOracleColumns = ["held out", "self-fitted", "self-fitted, exponent per receiver", "and reference power free per moment"]
/// The trailing windows (s) the live held-out oracle is also run with; the engine's is 3 s.
let walkOracleWidths = [1.0, 1.5, 2, 3, 4, 6]
/// The locators compared with the oracle, and the gains the bootstrap table gives.
let walkOracleLocators: [LocatorKind] = [.default, .nelderMead]
let walkOracleGains = ["default over live", "nelder-mead over live", "default over centred", "nelder-mead over centred"]

/// The oracle on `walk` under its held-out calibration, the calibration fitted on it, and a fit
/// on it with one exponent per receiver (with and without a reference power free per moment);
/// `locators` are `walkOracleLocators`' outputs on the walk, scored on the oracle's moments.
func walkOracleRow(_ walk: Walk, receivers: [Node], heldOut: Calibration, own: Calibration, site: Site,
                   options: EngineOptions, locators: [ReplayOutput]) throws -> WalkOracleRow {
    guard let perReceiver = ReceiverPathLoss.fitPerReceiver(walks: [walk], nodes: receivers), let floor = site.floors.first else {
        throw AccuracyError("cannot fit an exponent per receiver on \(walk.name)")
    }
    let oracle = WalkOracle(nodes: receivers, bounds: (floor.bounds.min.xy, floor.bounds.max.xy))
    let models = [ReceiverPathLoss(heldOut, nodes: receivers), ReceiverPathLoss(own, nodes: receivers), perReceiver, perReceiver]
    let weighted = models.enumerated().map { WalkOracleVariant(model: $1, freeReference: $0 == 3) }
    let unweighted = models.enumerated().map { WalkOracleVariant(model: $1, freeReference: $0 == 3, weighted: false) }
    let z = options.deviceHeight ?? 1.2
    let blind = [WalkOracleVariant(model: models[0], lag: 1.5), WalkOracleVariant(model: models[0], height: z)]
        + models.enumerated().map { WalkOracleVariant(model: $1, freeReference: $0 == 3, lag: 1.5, height: z) }
    let widths = walkOracleWidths.map { WalkOracleVariant(model: models[0], lag: $0 / 2, height: z, width: $0) }
    let runs = oracle.errors(on: walk, variants: weighted + unweighted + [WalkOracleVariant(model: models[0], freeReference: true)]
                                 + blind + widths)
    let summaries = runs.map { ErrorSummary(errors: $0.errors) }
    let moments = oracle.moments(of: walk)
    let heard = moments.flatMap(\.counts).filter { $0 > 0 }
    let atMoments = locators.map { errors(of: $0, at: moments) }
    return WalkOracleRow(moments: moments.count, figures: Array(summaries[0..<4]), unweighted: Array(summaries[4..<8]),
                         heldOutFreeReference: (summaries[8], runs[8].unfixed), withoutHindsight: Array(summaries[9..<15]),
                         widths: Array(summaries[15...]), locatorsAtMoments: atMoments.map { ErrorSummary(errors: $0.compactMap { $0 }) },
                         intervals: bootstrapIntervals(centred: runs[0].errors, live: runs[11].errors, locators: atMoments),
                         singleReadings: (heard.filter { $0 == 1 }.count, heard.count), perReceiver: perReceiver)
}

/// The bootstrap intervals of a row: every series is one value per moment, in the same order,
/// so a gain resamples the locator's and the oracle's errors at the same moments.
func bootstrapIntervals(centred: [Double], live: [Double], locators: [[Double?]])
    -> (centred: Interval?, live: Interval?, gains: [(value: Double, interval: Interval?)]) {
    let bootstrap = BlockBootstrap()
    func median(_ values: [Double], _ picked: [Int]) -> Double { ErrorSummary(errors: picked.map { values[$0] }).median }
    var gains: [(value: Double, interval: Interval?)] = []
    for oracle in [live, centred] {
        for errors in locators {
            // Moments where both have a figure (a locator has none before its first update).
            let both = errors.indices.filter { $0 < oracle.count && errors[$0] != nil }
            let a = both.map { oracle[$0] }, b = both.compactMap { errors[$0] }
            let gain = { (picked: [Int]) in median(a, picked) - median(b, picked) }
            gains.append((gain(Array(a.indices)), bootstrap.interval(count: both.count, gain)))
        }
    }
    return (bootstrap.medianInterval(centred), bootstrap.medianInterval(live), gains)
}
