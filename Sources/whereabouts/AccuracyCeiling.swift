import Foundation
import Positioning
import Simulation
import Wire
import SiteModel

/// One estimator's figures on one scenario: 2-D error over every sample and over the samples
/// in still periods, and the share of samples in a wrong room.
struct CeilingFigures {
    var all: ErrorSummary
    var still: ErrorSummary
    var roomErrors: Double
}

/// The default's figures beside the oracle's on one scenario and seed.
struct CeilingRow {
    var name: String
    var seedOffset: UInt64
    var shadowingSD: Double
    var engine: CeilingFigures
    /// In `ceilingVariants` order.
    var oracle: [CeilingFigures]
    /// The oracle's samples, and those heard by fewer than three nodes.
    var samples: Int
    var fewNodes: Int
    /// The readings against the channel's model at the true positions (committed seeds only).
    var residuals: ReadingResiduals?
}

/// The oracle's variants in the report's order: each removes one more fixed error, then the
/// shadowing that is left is scaled down to 2 and 1 dB (the same field, a smaller amplitude).
func ceilingVariants(shadowingSD sd: Double) -> [OracleVariant] {
    [.engine, .offsetsKnown, .shadowingOnly] + [2.0, 1.0].map { OracleVariant(offsets: false, body: false, shadowing: sd > 0 ? $0 / sd : 0) }
}

/// The spans of each device's still periods that count (after `SiteScore.settle`).
struct StillSpans {
    private var spans: [String: [(from: Double, to: Double)]] = [:]

    init(_ truth: GroundTruth) {
        for (id, samples) in truth.devices {
            spans[id] = SiteScore.stillPeriods(samples).map { ($0.from + SiteScore.settle, $0.to) }
        }
    }

    func contains(_ id: String, _ t: Double) -> Bool {
        spans[id]?.contains { t > $0.from && t <= $0.to } ?? false
    }
}

/// The oracle on `simulation` (one sample a second of true time) beside the default's updates in `run`.
func ceilingRow(_ simulation: Simulation, run: ScenarioAccuracy, truth: GroundTruth, seedOffset: UInt64) -> CeilingRow {
    let sd = simulation.scenario.effects.shadowingSD
    let variants = ceilingVariants(shadowingSD: sd)
    let samples = simulation.oracle(variants)
    let still = StillSpans(truth)
    let k = LocatorKind.allCases.firstIndex(of: .default) ?? 0
    var all: [Double] = [], stillErrors: [Double] = []
    for u in run.outputs[k].updates {
        guard let p = truth.sample(u.id, at: u.t)?.position else { continue }
        let e = ((u.x - p.x) * (u.x - p.x) + (u.y - p.y) * (u.y - p.y)).squareRoot()
        all.append(e)
        if still.contains(u.id, u.t) { stillErrors.append(e) }
    }
    let engine = CeilingFigures(all: ErrorSummary(errors: all), still: ErrorSummary(errors: stillErrors),
                                roomErrors: run.score(.default).roomErrorRate)
    let oracle = variants.indices.map { v in oracleFigures(samples, variant: v, site: simulation.site, still: still) }
    return CeilingRow(name: run.name, seedOffset: seedOffset, shadowingSD: sd, engine: engine, oracle: oracle,
                      samples: samples.count, fewNodes: samples.filter { $0.heard < 3 }.count)
}

/// Errors and rooms of variant `v`'s fixes. A fix's room is the first of its floor's rooms
/// holding it; a true position on the line two rooms share belongs to both, as in `SiteScore`.
func oracleFigures(_ samples: [OracleSample], variant v: Int, site: Site, still: StillSpans) -> CeilingFigures {
    var all: [Double] = [], stillErrors: [Double] = [], checks = 0, wrong = 0
    for s in samples {
        let fix = s.fixes[v], truth = s.truth.xy
        let e = ((fix.x - truth.x) * (fix.x - truth.x) + (fix.y - truth.y) * (fix.y - truth.y)).squareRoot()
        all.append(e)
        if still.contains(s.id, s.t) { stillErrors.append(e) }
        let rooms = site.floors[s.floor].rooms
        guard let real = rooms.firstIndex(where: { Polygon.contains($0.points, truth) }) else { continue }
        checks += 1
        let reported = rooms.firstIndex { Polygon.contains($0.points, fix) }
        if let reported, reported != real, Polygon.distanceToBoundary(rooms[reported].points, truth) < 1e-3 { continue }
        if reported != real { wrong += 1 }
    }
    return CeilingFigures(all: ErrorSummary(errors: all), still: ErrorSummary(errors: stillErrors),
                          roomErrors: checks > 0 ? Double(wrong) / Double(checks) : .nan)
}

/// A number as the prose writes it: a true minus sign.
private func minus(_ s: String) -> String { s.replacingOccurrences(of: "-", with: "−") }

/// A whole number with thousands separated by commas, as the prose writes it.
private func grouped(_ n: Int) -> String {
    let digits = String(n.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
        out.append(c)
    }
    return (n < 0 ? "−" : "") + out
}

/// What the oracle is, above its table.
let ceilingIntro = """
    ### The model's ceiling on each simulated site (an oracle, not a locator)

    What a maximum-likelihood estimator with the simulator's exact model gets on these exact data. At each whole
    second of true time while a device is present: each node's **mean** RSSI from the simulator's own channel (no
    fading, no packet loss: what infinite averaging of a still device would give), the nodes whose full mean reaches
    the scenario's sensitivity (\(minus(String(format: "%.0f", ChannelEffects().sensitivity))) dBm unless it says
    otherwise), and the least-squares position in dB (equal Gaussian errors) under the channel's own path loss (its
    exponent, walls with their open doorways, floors), on the device's true floor at its true height (a 2-D search).
    The search: a grid of about \(grouped(Simulation.oracleGridPoints)) points per floor (a step of √(area /
    points), at least \(String(format: "%.2f", Simulation.oracleFinestStep)) m; path loss and walls per node and
    point tabulated once), then Levenberg–Marquardt and a compass search on the exact model from the three best
    distinct points. Each row removes one more fixed error: **engine's errors** keeps shadowing, body, receiver offsets and transmit error (the oracle's
    model has the announced power and the site's `rx_adj`, as the engine's); **offsets known** has each node's true
    offset and each device's true power; **shadowing only** subtracts the body too; the last two scale the same
    shadowing field down to 2 and 1 dB. Errors are 2-D, in metres, over every sample and over the samples in still
    periods (a minute or more, from \(String(format: "%.0f", SiteScore.settle)) s in, as for flips; each stay is one fix, so these quantiles move in
    steps); room errors: the fix's room by the site's polygons against the true room (a true position on a shared
    line is in both). The default's figures are its updates in the same run (every 0.5 s), against the same truth.
    The last column counts the samples, and those heard by fewer than three nodes.


    """

func simulatedCeilingMarkdown(_ rows: [CeilingRow]) -> String {
    var out = ceilingIntro
    out += "| scenario | estimator | all: median / p90 / p95 (m) | still: median / p90 / p95 (m) | room errors | samples (< 3 nodes) |\n"
    out += "|---|---|---|---|---:|---|\n"
    for row in rows where row.seedOffset == 0 {
        let names = ["oracle, engine's errors", "oracle, offsets known", "oracle, shadowing only (\(String(format: "%g", row.shadowingSD)) dB)",
                     "oracle, shadowing 2 dB", "oracle, shadowing 1 dB"]
        out += "| \(row.name) | default | \(triple(row.engine.all)) | \(triple(row.engine.still)) | \(percent(row.engine.roomErrors)) | |\n"
        for (name, f) in zip(names, row.oracle) {
            out += "| \(row.name) | \(name) | \(triple(f.all)) | \(triple(f.still)) | \(percent(f.roomErrors)) | \(row.samples) (\(row.fewNodes)) |\n"
        }
    }
    out += residualMarkdown(rows.filter { $0.residuals != nil })
    let others = rows.filter { $0.seedOffset > 0 }
    guard !others.isEmpty else { return out }
    out += "\nThe same on the other seeds of the section above (median / p95 over every sample, m):\n\n"
    out += "| scenario | seed | default | engine's errors | offsets known | shadowing only | 2 dB | 1 dB |\n"
    out += "|---|---|---|---|---|---|---|---|\n"
    for row in others {
        out += "| \(row.name) | +\(row.seedOffset) | " + ([row.engine] + row.oracle).map {
            String(format: "%.2f / %.2f", $0.all.median, $0.all.p95)
        }.joined(separator: " | ") + " |\n"
    }
    return out
}

/// The simulated readings' RMS residual at the true positions, beside which the real walks'
/// (under "The model's ceiling on each walk") can be read.
func residualMarkdown(_ rows: [CeilingRow]) -> String {
    guard !rows.isEmpty else { return "" }
    var out = "\nEach simulated reading against the channel's model at its device's true position (fading, quantising and every\n"
    out += "fixed error in it): RMS per reading in dB, against the model the engine holds (announced power, the site's `rx_adj`)\n"
    out += "and with each device's true power and each node's true offset in the model (as a calibration fitted on the data\n"
    out += "itself would have them), and of the latter the fixed part (the readings' means: shadowing and body, no fading).\n"
    out += "The real walks' counterpart is in the last section's table.\n\n"
    out += "| scenario | readings | RMS residual, engine's model (dB) | RMS residual, offsets known (dB) | of which fixed (dB) |\n"
    out += "|---|---:|---:|---:|---:|\n"
    for row in rows {
        guard let r = row.residuals else { continue }
        out += "| \(row.name) | \(r.count) | " + String(format: "%.1f | %.1f | %.1f |\n", r.engine, r.offsetsKnown, r.fixed)
    }
    return out
}
