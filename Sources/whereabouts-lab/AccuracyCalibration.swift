import Lab
import Foundation
import Positioning
import Simulation
import Wire
import SiteModel

/// What receiver calibration is worth on one scenario and seed: its readings through every
/// locator again with each node's true receiver offset as its `rx_adj`, and with the `rx_adj`
/// that `whereabouts calibrate` fits from the same site's nodes beaconing.
struct CalibrationRow {
    var name: String
    var seedOffset: UInt64
    /// The scored run, with the site's own `rx_adj`.
    var asScored: ScenarioAccuracy
    /// Every node's `rx_adj` the opposite of its true offset (the engine adds `rx_adj`).
    var known: ScenarioAccuracy
    /// After `whereabouts calibrate` (nil when the fit failed, with `failure` saying why).
    var calibrated: ScenarioAccuracy?
    var failure: String?
    /// Nodes whose `rx_adj` the fit set, of all the site's nodes.
    var calibratedNodes: Int
    var nodes: Int
    /// RMS (dB) over the calibrated nodes of each `rx_adj` less the truth, both taken about
    /// their mean over those nodes (only differences between receivers are fitted): the site's
    /// own, every `rx_adj` 0 (the offsets' own spread), the plain least-squares fit's, and the
    /// fit's with the prior (`NodeBeaconCalibration.receiverSpread`).
    var siteError: Double
    var zeroError: Double
    var plainError: Double?
    var priorError: Double?
    /// The calibrating fit's absorption, beside the channel's exponent.
    var absorption: Double?
    var exponent: Double
}

/// How the nodes beacon in the calibration run (as `tools/calibration/scenario.yaml`), and for how long.
let calibrationBeacons = NodeBeacons(interval: 1, txPower: -50)
let calibrationDuration = 300.0

/// The row of one scenario run: `simulation` made the readings, `summary` holds its hidden truths.
/// `priorSD` is the calibrating fit's prior on receivers (0: plain least squares), for `--calibration-prior`.
func calibrationRow(_ simulation: Simulation, summary: SimulationSummary, run: ScenarioAccuracy,
                    readings: [(node: String, reading: Reading)], truth: GroundTruth,
                    seedOffset: UInt64, priorSD: Double, options: EngineOptions) throws -> CalibrationRow {
    let site = simulation.site
    let offsets = site.nodes.map { node in summary.nodes.first { $0.name == node.name }?.rxOffset ?? 0 }
    var known = site
    for i in known.nodes.indices { known.nodes[i].rxAdj = -offsets[i] }
    let knownRun = ScenarioAccuracy(name: run.name, site: known, readings: readings, truth: truth, options: options)
    var row = CalibrationRow(name: run.name, seedOffset: seedOffset, asScored: run, known: knownRun, calibratedNodes: 0,
                             nodes: site.nodes.count, siteError: 0, zeroError: 0,
                             exponent: simulation.scenario.effects.pathLossExponent ?? site.positioning.absorption)
    let links = try beaconLinks(simulation)
    let beaconing = withBeacons(site)
    let plain = NodeBeaconCalibration.fit(site: beaconing, links: links, receiverSpread: nil)
    let prior = NodeBeaconCalibration.fit(site: beaconing, links: links, receiverSpread: NodeBeaconCalibration.receiverSpread)
    let chosen = priorSD > 0 ? NodeBeaconCalibration.fit(site: beaconing, links: links, receiverSpread: priorSD) : plain
    switch chosen {
    case .failure(.absorptionOutOfRange(let n)): row.failure = String(format: "refused: absorption %.2f outside 1–6", n)
    case .failure(let failure): row.failure = "refused: \(failure)"
    case .success(let fit):
        // The fitted rx_adj only: the site's absorption is the channel's exponent already, and
        // the fit's came out up to 1.6 low (high on house + 2 by 0.38, reference + 1 by 0.12;
        // the calibration section says what pasting it cost).
        var calibrated = site
        for i in calibrated.nodes.indices { calibrated.nodes[i].rxAdj = fit.rxAdj[site.nodes[i].name] ?? site.nodes[i].rxAdj }
        row.calibrated = ScenarioAccuracy(name: run.name, site: calibrated, readings: readings, truth: truth, options: options)
        row.calibratedNodes = fit.rxAdj.count
        row.absorption = fit.absorption
    }
    row.measureOffsets(site: site, offsets: offsets, fitted: try? chosen.get(), plain: try? plain.get(), prior: try? prior.get())
    return row
}

extension CalibrationRow {
    /// The offset errors, over the nodes `fitted` calibrated (every node when it failed).
    mutating func measureOffsets(site: Site, offsets: [Double], fitted: NodeBeaconCalibration?,
                                 plain: NodeBeaconCalibration?, prior: NodeBeaconCalibration?) {
        let names = site.nodes.map(\.name).filter { fitted?.rxAdj[$0] != nil || fitted == nil }
        let truths = Dictionary(uniqueKeysWithValues: zip(site.nodes.map(\.name), offsets.map { -$0 }))
        siteError = relativeRMS(Dictionary(uniqueKeysWithValues: site.nodes.map { ($0.name, $0.rxAdj) }), truths, over: names)
        zeroError = relativeRMS(Dictionary(uniqueKeysWithValues: names.map { ($0, 0.0) }), truths, over: names)
        plainError = plain.map { relativeRMS($0.rxAdj, truths, over: names) }
        priorError = prior.map { relativeRMS($0.rxAdj, truths, over: names) }
    }
}

/// RMS of `values − truths` over `names`, each taken about its own mean over `names`.
func relativeRMS(_ values: [String: Double], _ truths: [String: Double], over names: [String]) -> Double {
    guard !names.isEmpty else { return .nan }
    func centred(_ d: [String: Double]) -> [Double] {
        let v = names.map { d[$0] ?? .nan }
        let mean = v.reduce(0, +) / Double(v.count)
        return v.map { $0 - mean }
    }
    let e = zip(centred(values), centred(truths)).map { $0 - $1 }
    return (e.reduce(0) { $0 + $1 * $1 } / Double(e.count)).squareRoot()
}

/// The site with a beacon id for every node (the nodes advertising, as for `whereabouts calibrate`).
func withBeacons(_ site: Site) -> Site {
    var site = site
    for i in site.nodes.indices { site.nodes[i].beacon = "iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-\(i + 1)" }
    return site
}

/// A separate simulation of the scored one's site and seed in which only the nodes beacon:
/// the same receivers (each node's offset and shadowing fields come from streams named after
/// the node, and the same effects), none of the scored readings. Its links as the engine keeps
/// them, as `whereabouts calibrate` reads them.
func beaconLinks(_ scored: Simulation) throws -> NodeBeaconLinks {
    let site = withBeacons(scored.site)
    var scenario = scored.scenario
    scenario.devices = []
    scenario.nodeBeacons = calibrationBeacons
    scenario.duration = calibrationDuration
    guard let simulation = Simulation.prepare(site: site, scenario: scenario).simulation else {
        throw AccuracyError("\(scored.site.nodes.count) nodes cannot beacon in the calibration run")
    }
    var memory = MemorySimulation()
    _ = simulation.run(into: &memory)
    let engine = Engine(site: site, locator: .nearest)
    for (node, reading) in try memory.readings() { _ = engine.ingest(node: node, reading: reading) }
    return engine.beaconLinks
}

private func dB(_ v: Double?) -> String { v.map { $0.isNaN ? "–" : String(format: "%.1f", $0) } ?? "–" }

/// The section: every locator with the site's `rx_adj`, the true offsets and the fitted ones
/// on the committed seeds; the fits' errors on every seed; the other seeds in brief.
func calibrationMarkdown(_ rows: [CalibrationRow]) -> String {
    var out = calibrationIntro
    out += "| scenario | locator | rx_adj | median / p90 / p95 (m) | room errors | flips / h still | door delay (s) |\n"
    out += "|---|---|---|---|---:|---:|---|\n"
    for row in rows where row.seedOffset == 0 {
        for kind in LocatorKind.allCases {
            for (label, run) in calibrationVariants(row) {
                out += "| \(row.name) | \(kind.rawValue) | \(label) | " + (run.map { scoreFigures($0.score(kind)) + " |\n" } ?? "– | – | – | – |\n")
            }
        }
    }
    return out + fitMarkdown(rows) + otherSeedsMarkdown(rows.filter { $0.seedOffset > 0 })
}

/// How far each seed's fits are from the true offsets, and the absorption they found.
private func fitMarkdown(_ rows: [CalibrationRow]) -> String {
    var out = "\nThe calibrating fit on each seed: how many of the site's nodes it calibrated, and the RMS over them of each\n"
    out += "`rx_adj` less the truth (both about their mean over those nodes, dB): the site's own `rx_adj`, all 0, the plain\n"
    out += "least-squares fit, and the fit with the prior (\(String(format: "%g", NodeBeaconCalibration.receiverSpread)) dB); "
    out += "and the fit's absorption beside the channel's exponent.\n\n"
    out += "| scenario | seed | calibrated | site's rx_adj | all 0 | plain fit | with prior | absorption fitted (channel) |\n"
    out += "|---|---|---:|---:|---:|---:|---:|---|\n"
    for row in rows.sorted(by: { ($0.name, $0.seedOffset) < ($1.name, $1.seedOffset) }) {
        out += "| \(row.name) | +\(row.seedOffset) | \(row.calibratedNodes) of \(row.nodes) | \(dB(row.siteError)) | \(dB(row.zeroError)) | "
        out += "\(dB(row.plainError)) | \(dB(row.priorError)) | "
        out += (row.absorption.map { metres($0) } ?? "– (\(row.failure ?? "no fit"))") + " (\(metres(row.exponent))) |\n"
    }
    return out
}

/// Every locator's median, p95 and room errors on the other seeds, in the three variants.
private func otherSeedsMarkdown(_ others: [CalibrationRow]) -> String {
    guard !others.isEmpty else { return "" }
    var out = "\nThe other seeds (median / p95 in m, room errors):\n\n"
    out += "| scenario | seed | locator | site's rx_adj | true offsets | after `whereabouts calibrate` |\n"
    out += "|---|---|---|---|---|---|\n"
    for row in others {
        for kind in LocatorKind.allCases {
            out += "| \(row.name) | +\(row.seedOffset) | \(kind.rawValue) |" + calibrationVariants(row).map { _, run in
                guard let s = run?.score(kind) else { return " – |" }
                return " \(metres(s.errors.median)) / \(metres(s.errors.p95)), \(s.roomChecks > 0 ? String(format: "%.1f %%", s.roomErrorRate * 100) : "–") |"
            }.joined() + "\n"
        }
    }
    return out
}

private func calibrationVariants(_ row: CalibrationRow) -> [(String, ScenarioAccuracy?)] {
    [("site's", row.asScored), ("true offsets", row.known), ("after `whereabouts calibrate`", row.calibrated)]
}

/// The table's heading; what it measures and how to read it is in docs/accuracy.md
/// ("Reading the tables"), its history in docs/history/accuracy-2026-11.md.
let calibrationIntro = """

    ### What receiver calibration is worth (a diagnostic, and what `whereabouts calibrate` delivers)

    """
