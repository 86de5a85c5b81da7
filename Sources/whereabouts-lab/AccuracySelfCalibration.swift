import Lab
import Foundation
import Options
import Positioning
import Wire
import SiteModel

/// The real walks as a user without a survey or a calibration runs them: the site's defaults,
/// and self-calibration learning from traffic (`selfCalibratedRun`).
struct SelfCalibrationRow {
    var walk: String
    /// Every locator with self-calibration off: the site file's defaults only.
    var off: [(kind: LocatorKind, summary: ErrorSummary)]
    /// The default learning as it first hears the walk (one pass, scored as it learns).
    var online: ErrorSummary
    /// The default after learning over the walk once, scored on a second pass (still learning).
    var afterPass: ErrorSummary
    /// The default after learning over the other walks, scored on this one (still learning).
    var others: ErrorSummary
    /// What the pass over this walk learned.
    var learned: SelfCalibrationSnapshot

    func off(_ kind: LocatorKind) -> ErrorSummary? { off.first { $0.kind == kind }?.summary }
}

func selfCalibrationRows(dir: String, step: Double, options: EngineOptions = EngineOptions()) throws -> [SelfCalibrationRow] {
    let (receivers, walks) = try loadPhilotuxo(dir)
    let base = Philotuxo.site(receivers: receivers)
    var off = base
    off.positioning.selfCalibration = .off
    return walks.enumerated().map { i, walk in
        let plain = LocatorKind.allCases.map { kind in (kind: kind, summary: replay(walk, site: off, locator: kind, step: step, options: options)) }
        let online = selfCalibratedRun(walk, site: base, learnFrom: [], step: step, options: options)
        let afterPass = selfCalibratedRun(walk, site: base, learnFrom: [walk], step: step, options: options)
        let others = selfCalibratedRun(walk, site: base, learnFrom: walks.enumerated().filter { $0.offset != i }.map(\.element),
                                       step: step, options: options)
        return SelfCalibrationRow(walk: walk.name, off: plain, online: online.summary, afterPass: afterPass.summary,
                                  others: others.summary, learned: afterPass.learned)
    }
}

/// The no-survey bar: with the site's defaults and self-calibration learned from the walk itself
/// (`afterPass`), each walk's median ≤ 2.0 m, and the default (online) ahead of nearest and nelder-mead.
func selfCalibrationBars(_ rows: [SelfCalibrationRow]) -> String {
    func ahead(_ row: SelfCalibrationRow) -> Bool {
        [LocatorKind.nearest, .nelderMead].allSatisfy { row.online.median < (row.off($0)?.median ?? .infinity) }
    }
    let met = rows.allSatisfy { $0.afterPass.median <= 2.0 && ahead($0) }
    var out = "Real walks without a survey or a calibration (self-calibration learned from the walk itself: median ≤ 2.0 m, "
        + "the default ahead of nearest and nelder-mead):" + (met ? " **met**.\n" : " **not met**.\n")
    for row in rows {
        out += "- \(row.walk): after a pass \(String(format: "%.2f", row.afterPass.median)) m, online \(String(format: "%.2f", row.online.median)) m, "
            + (row.afterPass.median <= 2.0 ? "within 2.0 m" : "not within 2.0 m") + ", " + (ahead(row) ? "ahead of both" : "not ahead of both") + "\n"
    }
    return out + "\n"
}

/// The "No survey, no calibration" section of docs/accuracy.md.
func selfCalibrationMarkdown(_ rows: [SelfCalibrationRow]) -> String {
    func cell(_ s: ErrorSummary?) -> String { s.map { String(format: "%.2f / %.2f", $0.median, $0.p90) } ?? "–" }
    var out = "### No survey, no calibration: the site's defaults and self-calibration\n\n"
    out += "Median / p90 (m). The site file's defaults (absorption 2.7 left unstated, reference power −59 dBm, every `rx_adj` 0). "
        + "These walks have no anchored device and no beaconing node, so self-calibration learns only the floor's exponent from "
        + "the fixes (node offsets are learned from fixes only with `fixOffsetWeight` > 0, which made every simulated site worse). "
        + "`off`: self-calibration off; `online`: the default learning as it first hears the walk; "
        + "`after a pass`: learned over the walk once, then scored on a second pass of it (**it has seen the readings it is scored on**; "
        + "no ground truth is used in learning); `after the others`: learned over the other four walks in turn, then scored on this "
        + "one (held out). Self-calibration's constants were chosen on the simulated sites (the gate) and first guesses, "
        + "not tuned on these walks.\n\n"
    out += "| walk | default, off | nearest | nelder-mead | default, online | default, after a pass | default, after the others | exponent after a pass |\n"
    out += "|---|---|---|---|---|---|---|---:|\n"
    for row in rows {
        let exponent = row.learned.floors.first.map { String(format: "%.2f", $0.exponent) } ?? "–"
        out += "| \(row.walk) | \(cell(row.off(.default))) | \(cell(row.off(.nearest))) | \(cell(row.off(.nelderMead))) | "
            + "\(cell(row.online)) | \(cell(row.afterPass)) | \(cell(row.others)) | \(exponent) |\n"
    }
    return out
}

let selfCalibrationCommand = Command(
    name: "whereabouts-lab self-calibration",
    abstract: "the real walks with the site's defaults, without and with self-calibration",
    usage: ["whereabouts-lab self-calibration [--philotuxo DIR] [--scenarios DIR] [--sites DIR] [--step SECONDS] [tuning options]"],
    options: [
        .value("philotuxo", "DIR", help: "The Position-Annotated BLE RSSI Dataset (cnf/, trk/); 'none' skips it.",
               default: "Tests/Fixtures/philotuxo"),
        .value("scenarios", "DIR", help: "Also score the default on each scenario's committed seed against the gate's thresholds; 'none' skips.",
               default: "none"),
        .value("sites", "DIR", help: "The sites the scenarios run on.", default: "tools/sites"),
        .value("step", "SECONDS", help: "Event time between position updates.", default: "0.5"),
        .value("teaching-step", "M", help: "SelfCalibrationOptions.teachingStep (an experiment)."),
        .value("node-prior", "W", help: "SelfCalibrationOptions.nodePrior (an experiment)."),
        .value("node-memory", "W", help: "SelfCalibrationOptions.nodeMemory (an experiment)."),
        .value("exponent-reach", "N", help: "SelfCalibrationOptions.exponentReach (an experiment; 0: the exponent is not learned)."),
    ],
    discussion: "Prints the table `make accuracy` writes into docs/accuracy.md (No survey, no calibration).")

func runSelfCalibration(_ arguments: [String]) -> Int32 {
    runTool(selfCalibrationCommand, arguments: arguments) { args in
        let step = try args.double("step", in: 0.05...10) ?? 0.5
        var options = EngineOptions()
        if let v = try args.double("teaching-step", in: 0...100) { options.selfCalibration.teachingStep = v }
        if let v = try args.double("node-prior", in: 0...1e9) { options.selfCalibration.nodePrior = v }
        if let v = try args.double("node-memory", in: 1...1e9) { options.selfCalibration.nodeMemory = v }
        if let v = try args.double("exponent-reach", in: 0...3) { options.selfCalibration.exponentReach = v }
        let scenarios = args.string("scenarios") ?? "none"
        if scenarios != "none" { try scoreScenarios(scenarios, sites: args.string("sites") ?? "tools/sites", step: step, options: options) }
        let dir = args.string("philotuxo") ?? "Tests/Fixtures/philotuxo"
        if dir != "none" { print(selfCalibrationMarkdown(try selfCalibrationRows(dir: dir, step: step, options: options)), terminator: "") }
        return ExitCode.success
    }
}

/// The default on each scenario's committed seed with the sites as they are (self-calibration
/// learning), each gate figure of it against `Tests/accuracy-thresholds.json`.
private func scoreScenarios(_ scenarios: String, sites: String, step: Double, options: EngineOptions) throws {
    let thresholds = try readFigures("Tests/accuracy-thresholds.json").filter { $0.key.contains("/default/") }
    for file in try scenarioFiles(scenarios) {
        let scored = try simulateScenario(file, scenarios: scenarios, sites: sites, step: step, seedOffset: 0, options: options)
        var figures = AccuracyFigures()
        figures.add(scenario: scored.6)
        let s = scored.6.score(.default)
        let mine = thresholds.filter { $0.key.hasPrefix("scenario/\(scored.0)/") }
        let failures = AccuracyGate.failures(current: figures.values.filter { mine[$0.key] != nil }, thresholds: mine)
        print(String(format: "%@: default %.2f / %.2f / %.2f m, room errors %.1f %%", scored.0, s.errors.median, s.errors.p90,
                     s.errors.p95, 100 * s.roomErrorRate) + (failures.isEmpty ? ", within the gate" : ""))
        for line in failures { print("  \(line)") }
    }
}
