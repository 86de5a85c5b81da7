import Foundation
import Lab
import Options
import Positioning
import SiteModel

let gateCommand = Command(
    name: "whereabouts-lab gate",
    abstract: "fail when a positioning figure got worse than its committed threshold",
    usage: ["whereabouts-lab gate [--thresholds FILE] [--json FILE] [--write-thresholds] [--scenarios DIR] [--sites DIR] [--philotuxo DIR]"],
    options: [
        .value("thresholds", "FILE", help: "The committed thresholds.", default: "Tests/accuracy-thresholds.json"),
        .value("json", "FILE", help: "Also write this run's figures as JSON."),
        .flag("write-thresholds", help: "Write --thresholds from this run (each figure plus its tolerance) instead of checking."),
        .value("scenarios", "DIR", help: "Scenarios to simulate, each on the site of the same name.", default: "tools/scenarios"),
        .value("sites", "DIR", help: "The sites the scenarios run on.", default: "tools/sites"),
        .value("philotuxo", "DIR", help: "The real walks (cnf/, trk/); 'none' skips them.", default: "Tests/Fixtures/philotuxo"),
    ],
    discussion: """
        Runs every locator on every scenario with its committed seed and on every real walk with
        its leave-one-walk-out calibration (the figures of `make accuracy` that docs/accuracy.json
        holds, without the reseeded runs, oracles and calibration diagnostics), then compares each
        figure with its threshold. Lower is better for every figure but doors_found_pct. Exits 0
        when none is worse, 1 naming each that is (or that this run no longer has), 64 on a usage
        error.
        """)

func runGate(_ arguments: [String]) -> Int32 {
    runTool(gateCommand, arguments: arguments) { args in
        let thresholdsPath = args.string("thresholds") ?? "Tests/accuracy-thresholds.json"
        let figures = try gateFigures(scenarios: args.string("scenarios") ?? "tools/scenarios", sites: args.string("sites") ?? "tools/sites",
                                      philotuxo: args.string("philotuxo") ?? "Tests/Fixtures/philotuxo")
        if let json = args.string("json") { try figures.json().write(toFile: json, atomically: true, encoding: .utf8) }
        if args.flag("write-thresholds") {
            try AccuracyGate.thresholdsJSON(from: figures).write(toFile: thresholdsPath, atomically: true, encoding: .utf8)
            printError("wrote \(figures.keys.count) thresholds to \(thresholdsPath)")
            return ExitCode.success
        }
        let thresholds = try readFigures(thresholdsPath)
        let failures = AccuracyGate.failures(current: figures.values, thresholds: thresholds)
        guard failures.isEmpty else {
            printError("accuracy gate: \(failures.count) of \(thresholds.count) figures worse than \(thresholdsPath):")
            for line in failures { printError("  \(line)") }
            return ExitCode.failure
        }
        print("accuracy gate: all \(thresholds.count) figures within \(thresholdsPath)")
        return ExitCode.success
    }
}

/// The gate's figures: every scenario on its committed seed and every real walk held out.
func gateFigures(scenarios: String, sites: String, philotuxo: String, survey: String = "Tests/Fixtures/philotuxo-survey",
                 flat: String = "Tests/Fixtures/kolakowski", step: Double = 0.5) throws -> AccuracyFigures {
    var figures = AccuracyFigures()
    for file in try scenarioFiles(scenarios) {
        let scored = try simulateScenario(file, scenarios: scenarios, sites: sites, step: step, seedOffset: 0, options: EngineOptions())
        figures.add(scenario: scored.6)
        printError("\(scored.0): scored")
    }
    guard philotuxo != "none" else { return figures }
    let (receivers, walks) = try loadPhilotuxo(philotuxo)
    let base = Philotuxo.site(receivers: receivers)
    for (i, walk) in walks.enumerated() {
        let others = walks.enumerated().filter { $0.offset != i }.map(\.element)
        guard let calibration = Calibration.fit(walks: others, nodes: receivers) else {
            throw AccuracyError("cannot fit a calibration without \(walk.name)")
        }
        for kind in LocatorKind.allCases {
            figures.add(walk: walk.name, locator: kind, errors: replay(walk, site: calibration.applied(to: base), locator: kind, step: step))
        }
        printError("\(walk.name): scored")
    }
    figures.add(survey: try surveyRows(philotuxo: philotuxo, hallSurvey: survey, flat: flat))
    printError("survey rows: scored")
    return figures
}

/// The `figures` object of a JSON file `AccuracyFigures.json()` wrote.
func readFigures(_ path: String) throws -> [String: Double] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let figures = root["figures"] as? [String: Any] else {
        throw AccuracyError("\(path): expected {\"figures\": {KEY: NUMBER, …}}")
    }
    var out: [String: Double] = [:]
    for (key, value) in figures {
        guard let number = value as? NSNumber else { throw AccuracyError("\(path): \(key) is not a number") }
        out[key] = number.doubleValue
    }
    return out
}
