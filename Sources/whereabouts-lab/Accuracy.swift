import Lab
import Foundation
import Options
import Positioning
import Simulation
import Wire
import SiteModel

let accuracyCommand = Command(
    name: "whereabouts-lab accuracy",
    abstract: "measure each locator's error on the simulated example sites and the real walks of the philotuxo dataset",
    usage: ["whereabouts-lab accuracy [--scenarios DIR] [--sites DIR] [--philotuxo DIR] [--survey DIR] [--flat DIR] [--sphere DIR] [--out FILE] [--json FILE] [--pictures DIR]"],
    options: [
        .value("scenarios", "DIR", help: "Scenarios to simulate, each on the site of the same name; 'none' skips them.",
               default: "tools/scenarios"),
        .value("sites", "DIR", help: "The sites the scenarios run on.", default: "tools/sites"),
        .value("philotuxo", "DIR", help: "The Position-Annotated BLE RSSI Dataset (cnf/, trk/); 'none' skips it.",
               default: "Tests/Fixtures/philotuxo"),
        .value("survey", "DIR", help: "The hall's site survey (positions.csv, set_N/): the walks scored with a survey-only calibration; 'none' skips it.",
               default: "Tests/Fixtures/philotuxo-survey"),
        .value("flat", "DIR", help: "The Kolakowski flat's robot survey (flat.csv, anchors.csv, layout.csv), split in time; 'none' skips it.",
               default: "Tests/Fixtures/kolakowski"),
        .value("sphere", "DIR", help: "The SPHERE house as tools/sphere-convert.py writes it (site.yaml, NNNNN/READINGS.jsonl, ROOMS.csv); 'none' skips it.",
               default: "Tests/Fixtures/sphere"),
        .value("out", "FILE", help: "Also write the tables into this markdown file, between its generated markers (e.g. docs/accuracy.md)."),
        .value("json", "FILE", help: "Write the gate's figures (committed seeds, real walks, every locator) as JSON (e.g. docs/accuracy.json)."),
        .value("pictures", "DIR", help: "Write SVGs of true versus estimated tracks here (e.g. docs/accuracy)."),
        .value("trace", "DIR", help: "Write each real walk's and each scenario's updates and truth as CSV files here."),
        .value("step", "SECONDS", help: "Event time between position updates.", default: "0.5"),
        .value("reseeded", "COUNT", help: "Also run each scenario with its seed plus 1 … COUNT; 0 skips.",
               default: "3"),
        .value("acceleration", "NOISE", help: "The tracker's process noise, (m/s²)²·s (an experiment; the default is the engine's).",
               default: "0.05"),
        .value("calibration-prior", "DB", help: "The calibrating fit's prior spread of receivers (an experiment; 0: plain least squares, else 0.1 to 40).",
               default: "2"),
    ],
    discussion: """
        Every locator (default, nearest, nelder-mead) runs on the same readings in the same run.
        Simulated sites: each scenario is simulated in memory with its seed, its readings replayed
        in the order a subscriber gets them; position error (2-D), room errors, a room confusion
        matrix, room flips per device-hour while still, and the delay from a door crossing to the
        enter event, against the project's bars (docs/accuracy.md); beside them the model's ceiling, an oracle's
        least-squares fix from each node's mean RSSI under the simulator's own model, with some
        of the fixed errors known; and what receiver calibration is worth: every locator again with
        each node's true receiver offset as its rx_adj, and with the rx_adj `whereabouts calibrate`
        fits from a separate simulation of the same site and seed in which only the nodes beacon.
        Real walks: the path-loss calibration (exponent, reference power, one offset per receiver)
        is fitted leave-one-walk-out: for each walk, only on the other walks. Errors are 2-D, against the ground truth at each update's time.
        """)

func runAccuracy(_ arguments: [String]) -> Int32 {
    runTool(accuracyCommand, arguments: arguments) { args in
        let step = try args.double("step", in: 0.05...10) ?? 0.5
        var engineOptions = EngineOptions()
        engineOptions.acceleration = try args.double("acceleration", in: 0...1e12) ?? engineOptions.acceleration
        let priorSD = try receiverSpread(args, "calibration-prior", upTo: 40)
        var figures = AccuracyFigures()
        var bars = "## Bars in this run\n\n"
        let scenarios = args.string("scenarios") ?? "tools/scenarios"
        var body = ""
        if scenarios != "none" {
            let simulated = try simulatedRuns(scenarios: scenarios, sites: args.string("sites") ?? "tools/sites", step: step,
                                              pictures: args.string("pictures"), trace: args.string("trace"), priorSD: priorSD,
                                              options: engineOptions)
            let runs = simulated.map(\.accuracy)
            for run in runs { figures.add(scenario: run) }
            var ceilings = simulated.map(\.ceiling)
            var calibrations = simulated.map(\.calibration)
            bars += "Simulated sites, committed seeds (median < 0.5 m, p95 < 1.2 m, room errors < 3 %, < 1 flip/h still, ahead of nearest and nelder-mead):"
                + (runs.allSatisfy { $0.missedBars.isEmpty } ? " **met** on every scenario.\n" : " **not met**.\n")
            for run in runs {
                bars += "- \(run.name): " + (run.missedBars.isEmpty ? "all met" : "not met: " + run.missedBars.joined(separator: ", ")) + "\n"
            }
            bars += "\n"
            body += simulatedMarkdown(runs) + "\n"
            let count = try args.int("reseeded", in: 0...20) ?? 3
            if count > 0 {
                var reseeded: [(offset: UInt64, runs: [ScenarioAccuracy])] = []
                for offset in 1...UInt64(count) {
                    let again = try simulatedRuns(scenarios: scenarios, sites: args.string("sites") ?? "tools/sites",
                                                  step: step, pictures: nil, seedOffset: offset, priorSD: priorSD, options: engineOptions)
                    reseeded.append((offset, again.map(\.accuracy)))
                    ceilings += again.map(\.ceiling)
                    calibrations += again.map(\.calibration)
                }
                body += reseededMarkdown(reseeded) + "\n"
            }
            body += simulatedCeilingMarkdown(ceilings) + "\n"
            body += calibrationMarkdown(calibrations) + "\n"
        }
        let dir = args.string("philotuxo") ?? "Tests/Fixtures/philotuxo"
        if dir != "none" {
            let rows = try philotuxoRows(dir: dir, step: step, trace: args.string("trace"), options: engineOptions)
            for row in rows {
                for (kind, summary) in row.results { figures.add(walk: row.walk, locator: kind, errors: summary) }
            }
            let met = rows.allSatisfy { $0.defaultWins && ($0.summary(.default)?.median ?? .infinity) < 1.5 }
            bars += "Real walks (the default beats nearest and nelder-mead on every walk, median < 1.5 m):"
                + (met ? " **met**.\n" : " **not met**.\n")
            for row in rows {
                let median = row.summary(.default)?.median ?? .nan
                bars += "- \(row.walk): default median \(String(format: "%.2f", median)) m, "
                    + (row.defaultWins ? "best of the three" : "not the best") + ", " + (median < 1.5 ? "under 1.5 m" : "not under 1.5 m") + "\n"
            }
            bars += "\n"
            body += accuracyMarkdown(rows, dir: dir)
            let uncalibrated = try selfCalibrationRows(dir: dir, step: step, options: engineOptions)
            bars += selfCalibrationBars(uncalibrated)
            body += "\n" + selfCalibrationMarkdown(uncalibrated)
        }
        let survey = try surveyRows(philotuxo: dir, hallSurvey: args.string("survey") ?? "Tests/Fixtures/philotuxo-survey",
                                    flat: args.string("flat") ?? "Tests/Fixtures/kolakowski")
        figures.add(survey: survey)
        if !survey.isEmpty { body += surveyMarkdown(survey) }
        let sphere = args.string("sphere") ?? "Tests/Fixtures/sphere"
        if sphere != "none" {
            let rows = try sphereRows(dir: sphere, step: step)
            bars += sphereBars(rows)
            body += "\n" + sphereMarkdown(rows, dir: sphere)
        }
        let markdown = bars + body
        print(markdown, terminator: "")
        if let out = args.string("out") {
            try writeGenerated(markdown, into: out)
            printError("wrote \(out)")
        }
        if let json = args.string("json") {
            try figures.json().write(toFile: json, atomically: true, encoding: .utf8)
            printError("wrote \(json)")
        }
        return ExitCode.success
    }
}

func philotuxoRows(dir: String, step: Double, trace: String?, options: EngineOptions = EngineOptions()) throws -> [AccuracyRow] {
    let (receivers, walks) = try loadPhilotuxo(dir)
    let base = Philotuxo.site(receivers: receivers)
    var rows: [AccuracyRow] = []
    for (i, walk) in walks.enumerated() {
        let others = walks.enumerated().filter { $0.offset != i }.map(\.element)
        guard let calibration = Calibration.fit(walks: others, nodes: receivers) else {
            throw AccuracyError("cannot fit a calibration without \(walk.name)")
        }
        let site = calibration.applied(to: base)
        let outputs = LocatorKind.allCases.map { kind in
            let output = replay(walk.readings, site: site, locator: kind, step: step, options: options)
            if let trace { writeTrace(output, walk: walk, to: "\(trace)/\(walk.name)-\(kind.rawValue).csv") }
            return (kind: kind, output: output)
        }
        let results = outputs.map { (kind: $0.kind, summary: ErrorSummary(errors: errors(of: $0.output, on: walk))) }
        // The model's ceiling on this walk: the same engine with a calibration fitted on this walk
        // itself. Not an honest figure (it has seen the answer); it says how much of the error is
        // the calibration's and how much the model's.
        guard let own = Calibration.fit(walks: [walk], nodes: receivers), let all = Calibration.fit(walks: walks, nodes: receivers) else {
            throw AccuracyError("cannot fit a calibration on \(walk.name) alone")
        }
        let ceiling = [own, all].map { seen in
            ErrorSummary(errors: errors(of: replay(walk.readings, site: seen.applied(to: base), locator: .default,
                                                   step: step, options: options), on: walk))
        }
        var heldOut = calibration.residuals(of: walk, nodes: receivers)
        // Receivers by name and place, so a reader can find them on the floor.
        heldOut.perNode = Dictionary(uniqueKeysWithValues: heldOut.perNode.map { name, value in
            let p = receivers.first { $0.name == name }?.point
            return ("`\(name)` " + (p.map { String(format: "(%.1f, %.1f)", $0.x, $0.y) } ?? ""), value)
        })
        let fitted = own.residuals(of: walk, nodes: receivers)
        let compared = walkOracleLocators.compactMap { kind in outputs.first { $0.kind == kind }?.output }
        let oracle = try walkOracleRow(walk, receivers: receivers, heldOut: calibration, own: own, site: base,
                                       options: options, locators: compared)
        rows.append(AccuracyRow(walk: walk.name, readings: walk.readings.count, calibration: calibration, results: results,
                                ceiling: ceiling, heldOutResidual: heldOut, ownResidual: fitted.rms, oracle: oracle,
                                receivers: receivers))
    }
    return rows
}

/// Every scenario in `scenarios` simulated in memory on the site of the same name, through
/// every locator and the oracle (the model's ceiling); pictures written to `pictures` when given.
func simulatedRuns(scenarios: String, sites: String, step: Double, pictures: String?,
                   trace: String? = nil, seedOffset: UInt64 = 0, priorSD: Double = NodeBeaconCalibration.receiverSpread,
                   options engineOptions: EngineOptions = EngineOptions()) throws -> [SimulatedRun] {
    let files = try scenarioFiles(scenarios)
    var runs: [SimulatedRun] = []
    for file in files {
        let (name, _, simulation, summary, readings, truth, run) = try simulateScenario(
            file, scenarios: scenarios, sites: sites, step: step, seedOffset: seedOffset, options: engineOptions)
        printError("\(name)\(seedOffset > 0 ? " (seed + \(seedOffset))" : ""): \(run.readings) readings, \(run.devices.count) devices; default \(run.missedBars.isEmpty ? "meets every bar" : "misses: " + run.missedBars.joined(separator: ", "))")
        if let pictures {
            try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
            for (picture, svg) in run.pictures(truth: truth) {
                try svg.write(toFile: "\(pictures)/\(picture).svg", atomically: true, encoding: .utf8)
            }
        }
        if let trace { writeTraces(run, truth: truth, to: trace) }
        var ceiling = ceilingRow(simulation, run: run, truth: truth, seedOffset: seedOffset)
        if seedOffset == 0 { ceiling.residuals = simulation.residuals(of: readings) }
        var options = engineOptions
        options.updateInterval = step
        let calibration = try calibrationRow(simulation, summary: summary, run: run, readings: readings, truth: truth,
                                             seedOffset: seedOffset, priorSD: priorSD, options: options)
        runs.append(SimulatedRun(accuracy: run, ceiling: ceiling, calibration: calibration))
    }
    return runs
}


/// Replaces the generated part of the markdown file at `path` (between the markers) and keeps
/// what people wrote around it; a file without the markers gets them at its end.
func writeGenerated(_ tables: String, into path: String) throws {
    let begin = "<!-- generated by whereabouts-lab accuracy: begin -->", end = "<!-- generated by whereabouts-lab accuracy: end -->"
    let generated = begin + "\n\n" + tables + "\n" + end
    var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "# Accuracy\n"
    if let a = text.range(of: begin), let b = text.range(of: end, range: a.upperBound..<text.endIndex) {
        text.replaceSubrange(a.lowerBound..<b.upperBound, with: generated)
    } else {
        text += "\n" + generated + "\n"
    }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

/// One scenario file simulated in memory on the site of the same name with its seed moved by
/// `seedOffset`, and its readings scored through every locator.
func simulateScenario(_ file: String, scenarios: String, sites: String, step: Double, seedOffset: UInt64,
                      options engineOptions: EngineOptions)
    throws -> (String, Site, Simulation, SimulationSummary, [(node: String, reading: Reading)], GroundTruth, ScenarioAccuracy) {
    let name = String(file.dropLast(".yaml".count))
    let site = try loadSite(path: "\(sites)/\(name).yaml")
    let decoded = try loadScenario(path: "\(scenarios)/\(file)")
    var scenario = decoded.scenario
    scenario.seed &+= seedOffset
    let (prepared, problems) = Simulation.prepare(site: site, scenario: scenario)
    guard let simulation = prepared, decoded.errors.isEmpty else {
        throw FileProblemsError(path: "\(scenarios)/\(file)", problems: (decoded.problems + problems).filter { $0.severity == .error })
    }
    var memory = MemorySimulation()
    let summary = simulation.run(into: &memory)
    let truth = try GroundTruth(jsonLines: memory.truth)
    var options = engineOptions
    options.updateInterval = step
    let readings = try memory.readings()
    let run = ScenarioAccuracy(name: name, site: site, readings: readings, truth: truth, options: options)
    return (name, site, simulation, summary, readings, truth, run)
}

/// The scenario files of `dir`, in name order.
func scenarioFiles(_ dir: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".yaml") }.sorted()
}

/// One scenario and seed: every locator's figures, the oracle's, and calibration's.
struct SimulatedRun {
    var accuracy: ScenarioAccuracy
    var ceiling: CeilingRow
    var calibration: CalibrationRow
}

/// Per locator, every update beside the truth at its time, and every room event, as CSV.
func writeTraces(_ run: ScenarioAccuracy, truth: GroundTruth, to dir: String) {
    for (k, kind) in LocatorKind.allCases.enumerated() {
        var text = "t,id,x,y,tx,ty,room,true_room,confidence,z,tz,floor,true_floor,fixes,residual\n"
        for u in run.outputs[k].updates {
            guard let real = truth.sample(u.id, at: u.t), let p = real.position else { continue }
            text += String(format: "%.2f,", u.t) + u.id + String(format: ",%.3f,%.3f,%.3f,%.3f,", u.x, u.y, p.x, p.y)
                + "\(u.room ?? "none"),\(real.room ?? "none")" + String(format: ",%.3f,%.2f,%.2f,", u.confidence, u.z, p.z)
                + "\(u.floor ?? "none"),\(real.floor ?? "none"),\(u.fixes)" + String(format: ",%.3f\n", u.residual)
        }
        try? text.write(toFile: "\(dir)/\(run.name)-\(kind.rawValue).csv", atomically: true, encoding: .utf8)
        var events = "t,id,type,zone,is_room\n"
        for e in run.outputs[k].events {
            events += String(format: "%.2f,", e.t) + "\(e.device),\(e.type.rawValue),\(e.zone),\(e.isRoom ? 1 : 0)\n"
        }
        try? events.write(toFile: "\(dir)/\(run.name)-\(kind.rawValue)-events.csv", atomically: true, encoding: .utf8)
    }
}

/// A simulation's readings and truth kept in memory; captures are not needed here.
struct MemorySimulation: SimulationOutput {
    var batches: [UInt8] = []
    var truth: [UInt8] = []

    mutating func write(_ bytes: [UInt8], to file: SimulationFile) {
        switch file {
        case .readings: batches += bytes
        case .truth: truth += bytes
        case .capture: break
        }
    }

    /// The batches' readings in order, each with the node that heard it.
    func readings() throws -> [(node: String, reading: Reading)] {
        var out: [(node: String, reading: Reading)] = []
        var bad = 0
        for line in batches.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            let batch = try Batch.decode(Array(line), badReadings: &bad)
            for r in batch.readings { out.append((batch.node, r)) }
        }
        return out
    }
}

struct AccuracyError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

struct AccuracyRow {
    var walk: String
    var readings: Int
    var calibration: Calibration
    var results: [(kind: LocatorKind, summary: ErrorSummary)]
    /// The default with a calibration fitted on this walk itself, and on all walks with this one
    /// (diagnostics, not results).
    var ceiling: [ErrorSummary]
    /// This walk's residuals under its held-out calibration: RMS (dB) and per node mean.
    var heldOutResidual: (rms: Double, perNode: [String: Double])
    /// The RMS residual (dB) under a calibration fitted on this walk itself.
    var ownResidual: Double
    /// The one-moment oracle's figures on this walk (diagnostics, not results).
    var oracle: WalkOracleRow
    var receivers: [Node]

    func summary(_ kind: LocatorKind) -> ErrorSummary? { results.first { $0.kind == kind }?.summary }

    /// The default has the lowest median of all locators, and is under the 1.5 m bar.
    var defaultWins: Bool {
        guard let d = summary(.default) else { return false }
        return results.allSatisfy { $0.kind == .default || d.median < $0.summary.median }
    }
}

func loadPhilotuxo(_ dir: String) throws -> ([Node], [Walk]) {
    let devices = try String(contentsOfFile: dir + "/cnf/tetam.dev", encoding: .utf8)
    let receivers = try Philotuxo.receivers(devices: devices)
    let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/trk").filter { $0.hasSuffix(".mbd") }.sorted()
    guard !files.isEmpty else { throw AccuracyError("no .mbd track files in \(dir)/trk") }
    let walks = try files.map { file in
        let name = String(file.dropLast(".mbd".count)).replacingOccurrences(of: "_all_sensors", with: "")
        return try Philotuxo.walk(name: name, text: String(contentsOfFile: dir + "/trk/" + file, encoding: .utf8))
    }
    return (receivers, walks)
}

/// A distance in metres as the tables print it.
/// Metres as the tables print them: two decimals.
func metres(_ v: Double) -> String { String(format: "%.2f", v) }

func accuracyMarkdown(_ rows: [AccuracyRow], dir: String) -> String {
    var out = "## Real walks (philotuxo)\n\n"
    out += "Dataset: `\(dir)` — Position-Annotated BLE RSSI Dataset (Daniş et al., CC0), 12 receivers, one beacon.\n"
    out += "Position error in metres (2-D, median / p90 / p95), every locator on the same readings in the same run.\n"
    out += "Calibration: path-loss exponent, reference power and one offset per receiver, fitted by least squares\n"
    out += "**leave-one-walk-out** (each walk is measured with a calibration fitted only on the other walks).\n"
    out += "The engine runs with its defaults (window 3 s, 6 dB residual scale with a 0.25 m range floor, Huber at 1.5, motion noise 0.05,\n"
    out += "a soft height prior at 1.2 m above the floor, the warm start or else the global grid search, reference power\n"
    out += "learned over 120 s, a still device reported at the mean of its fixes);\n"
    out += "those were settled while exploring\n"
    out += "these same five walks and the simulated sites above, so unlike the calibration they are **not** held out.\n"
    out += "The beacon here is carried at about 1.8 m; the prior stays at the engine's 1.2 m default, not the dataset's height.\n"
    out += "`nearest` reports the strongest node's position untracked; `nelder-mead` and `default` share the tracker.\n\n"
    out += "| walk | readings | n | default | nearest | nelder-mead | default best, < 1.5 m |\n"
    out += "|---|---:|---:|---|---|---|---|\n"
    for row in rows {
        out += "| \(row.walk) | \(row.readings) | \(String(format: "%.2f", row.calibration.absorption)) |"
        for kind in LocatorKind.allCases {
            guard let s = row.summary(kind) else { out += " – |"; continue }
            out += " \(metres(s.median)) / \(metres(s.p90)) / \(metres(s.p95)) |"
        }
        let underBar = (row.summary(.default)?.median ?? .infinity) < 1.5
        out += " \(row.defaultWins ? "best" : "**not best**"), \(underBar ? "yes" : "**no**") |\n"
    }
    let met = rows.allSatisfy { $0.defaultWins && ($0.summary(.default)?.median ?? .infinity) < 1.5 }
    out += "\nBar (default beats nearest and nelder-mead on every walk, median < 1.5 m): **\(met ? "met" : "not met")**.\n"
    out += ceilingMarkdown(rows)
    out += walkOracleMarkdown(rows)
    return out
}

/// What the model itself allows on each walk: the held-out calibration's residuals, and the
/// default's error with a calibration fitted on the walk being scored (which no honest figure may use).
func ceilingMarkdown(_ rows: [AccuracyRow]) -> String {
    var out = "\n### The model's ceiling on each walk (a diagnostic, not a result)\n\n"
    out += "How much of each walk's error is the calibration's and how much the path-loss model's: the walk's readings\n"
    out += "at their true positions against the held-out calibration (RMS residual per reading, and the receivers whose\n"
    out += "mean residual strays most: + is louder than the model), the RMS under a calibration fitted on the walk\n"
    out += "itself, and the default's error with that self-fitted calibration and with one fitted on all five walks\n"
    out += "(this one included). The last two columns have seen the answer: they show what this model of path loss\n"
    out += "(one exponent, one offset per receiver) gives when its calibration knows the walk, not figures any bar may use.\n\n"
    out += "| walk | RMS residual, held out (dB) | receivers furthest off (dB) | RMS residual, self-fitted (dB) | default, self-fitted | default, fitted on all five |\n"
    out += "|---|---:|---|---:|---|---|\n"
    for row in rows {
        let worst = row.heldOutResidual.perNode.sorted { abs($0.value) > abs($1.value) }.prefix(3)
            .map { "\($0.key) \(String(format: "%+.1f", $0.value))" }.joined(separator: ", ")
        out += "| \(row.walk) | \(String(format: "%.1f", row.heldOutResidual.rms)) | \(worst) | \(String(format: "%.1f", row.ownResidual)) |"
        for s in row.ceiling { out += " \(metres(s.median)) / \(metres(s.p90)) / \(metres(s.p95)) |" }
        out += "\n"
    }
    return out
}

func writeTrace(_ output: ReplayOutput, walk: Walk, to path: String) {
    var text = "t,x,y,z,tx,ty,tz,confidence\n"
    for u in output.updates {
        guard let truth = walk.truth(at: u.t) else { continue }
        text += String(format: "%.2f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", u.t, u.x, u.y, u.z, truth.x, truth.y, truth.z, u.confidence)
    }
    try? text.write(toFile: path, atomically: true, encoding: .utf8)
}
