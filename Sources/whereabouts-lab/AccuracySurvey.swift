import Lab
import Foundation
import Positioning
import Wire
import SiteModel

/// One scored run of the survey rows: what was fitted on what, and every locator's score on
/// what was held out, through `evaluate` (`whereabouts evaluate`'s own code).
struct SurveyRow {
    var data: String
    var scored: String
    /// `none` (the site file's defaults, self-calibration off), `fit` (absorption, rx_adj, tx_ref)
    /// or `fit + map`.
    var calibration: String
    var scores: [EvaluationScore]

    func score(_ kind: LocatorKind) -> EvaluationScore? { scores.first { $0.locator == kind } }
    var key: String { "survey/\(data)-\(scored)/\(calibration == "fit + map" ? "map" : calibration)" }
}

/// The survey rows: the hall's five walks with a calibration fitted on the hall's survey only
/// (no walk used), and the flat's survey fitted on its first half in time and scored on the
/// second; each with no calibration, with the fit alone, and with the fit and its radio map.
func surveyRows(philotuxo: String, hallSurvey: String, flat: String) throws -> [SurveyRow] {
    var rows: [SurveyRow] = []
    if hallSurvey != "none", philotuxo != "none" {
        let (receivers, walks) = try loadPhilotuxo(philotuxo)
        let site = Philotuxo.site(receivers: receivers)
        let survey = try SurveyData.philotuxo(positions: try text(hallSurvey + "/positions.csv")) { try text(hallSurvey + "/" + $0) }
        let variants = try calibrations(survey, site: site)
        for walk in walks {
            let truth = try TruthTrack(csv: walkTruthCSV(walk, site: site), site: site)
            for (label, calibrated) in variants {
                rows.append(SurveyRow(data: "hall", scored: shortName(walk.name), calibration: label,
                                      scores: try scores(walk.readings, site: calibrated, truth: truth)))
            }
        }
    }
    if flat != "none" {
        let site = try kolakowskiSite(anchors: try text(flat + "/anchors.csv"), layout: try text(flat + "/layout.csv"))
        let csv = try text(flat + "/flat.csv")
        let first = try SurveyData.kolakowski(flat: csv, half: .first), second = try SurveyData.kolakowski(flat: csv, half: .second)
        let truth = try TruthTrack(csv: second.truthCSV, site: site)
        for (label, calibrated) in try calibrations(first, site: site) {
            rows.append(SurveyRow(data: "flat", scored: "second-half", calibration: label,
                                  scores: try scores(second.readings, site: calibrated, truth: truth)))
        }
    }
    return rows
}

private func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

/// `straight_01_all_sensors` → `straight_01`.
private func shortName(_ walk: String) -> String { walk.replacingOccurrences(of: "_all_sensors", with: "") }

/// The site as is, with the survey's fit, and with the fit and its radio map.
private func calibrations(_ survey: SurveyData, site: Site) throws -> [(String, Site)] {
    let truth = try TruthTrack(csv: survey.truthCSV, site: site)
    let fit: SurveyCalibration
    switch SurveyCalibration.fit(readings: survey.readings, truth: truth, site: site) {
    case .success(let f): fit = f
    case .failure(let failure): throw AccuracyError("the survey does not fit: \(failure)")
    }
    var plain = fit.siteCalibration
    plain.radioMap = nil
    // The baseline without any calibration: what self-calibration makes of the defaults is
    // scored in its own rows (AccuracySelfCalibration.swift), not mixed into the survey's.
    var uncalibrated = site
    uncalibrated.positioning.selfCalibration = .off
    return [("none", uncalibrated), ("fit", plain.applied(to: site)), ("fit + map", fit.siteCalibration.applied(to: site))]
}

/// Every locator's score, as `whereabouts evaluate` computes it.
private func scores(_ readings: [(node: String, reading: Reading)], site: Site, truth: TruthTrack) throws -> [EvaluationScore] {
    try LocatorKind.allCases.map { kind in
        switch evaluate(readings, site: site, locator: kind, truth: truth) {
        case .success(let s): return s
        case .failure(let f): throw AccuracyError("cannot score: \(f)")
        }
    }
}

/// A walk's error as `whereabouts evaluate` scores it: event time in `step`s, the truth as
/// TRUTH.csv (`walkTruthCSV`), one way to score every real-data row.
func evaluated(_ walk: Walk, site: Site, locator: LocatorKind, step: Double, options: EngineOptions = EngineOptions()) throws -> ErrorSummary {
    var options = options
    options.updateInterval = step
    let truth = try TruthTrack(csv: walkTruthCSV(walk, site: site), site: site)
    switch evaluate(walk.readings, site: site, locator: locator, truth: truth, options: options) {
    case .success(let s): return ErrorSummary(errors: s.errors)
    case .failure(let f): throw AccuracyError("cannot score \(walk.name): \(f)")
    }
}

/// A walk's truth as tools/philotuxo-convert.py writes it: each distinct time's position,
/// clamped into the hall (one walk's annotation strays past the floor's bounds).
func walkTruthCSV(_ walk: Walk, site: Site) -> String {
    let b = site.floors[0].bounds
    var csv = "t,x,y,z\n", last = -Double.infinity
    for (t, p) in walk.truth where t != last {
        csv += "\(t),\(min(max(p.x, b.min.x), b.max.x)),\(min(max(p.y, b.min.y), b.max.y)),\(p.z)\n"
        last = t
    }
    return csv
}

extension AccuracyFigures {
    /// The survey rows' figures: `survey/<data>-<scored>/<calibration>/<locator>/<metric>`.
    mutating func add(survey rows: [SurveyRow]) {
        for row in rows {
            for s in row.scores {
                let base = "\(row.key)/\(s.locator.rawValue)/"
                for (metric, q) in [(Metric.median, 0.5), (.p90, 0.9), (.p95, 0.95)] {
                    if let v = s.quantile(q) { set(base + metric.rawValue, v) }
                }
            }
        }
    }
}

/// The section of docs/accuracy.md: each scored run's median / p90 per locator and calibration.
func surveyMarkdown(_ rows: [SurveyRow]) -> String {
    func m(_ v: Double?) -> String { v.map { String(format: "%.2f", $0) } ?? "–" }
    var out = "\n## Survey calibration on real data (`whereabouts calibrate --survey`, scored by `whereabouts evaluate`)\n\n"
    out += "Hall: fitted on the hall's survey alone (`Tests/Fixtures/philotuxo-survey`, 126 points, 60 s each), scored on each\n"
    out += "straight walk (no walk used for fitting). Flat: fitted on the first half in time of the flat's robot survey\n"
    out += "(`Tests/Fixtures/kolakowski`), scored on the second half. `none` is the site file's defaults with self-calibration off, `fit` the fitted\n"
    out += "absorption, rx_adj and tx_ref, `fit + map` the same with the fit's radio map. Median / p90 (m), 2-D.\n\n"
    out += "| data | scored | calibration | default | nearest | nelder-mead |\n|---|---|---|---|---|---|\n"
    for row in rows {
        out += "| \(row.data) | \(row.scored) | \(row.calibration) |"
        for kind in LocatorKind.allCases { out += " \(m(row.score(kind)?.quantile(0.5))) / \(m(row.score(kind)?.quantile(0.9))) |" }
        out += "\n"
    }
    return out
}
