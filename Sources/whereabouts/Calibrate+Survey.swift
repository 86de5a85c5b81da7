import Foundation
import Options
import Positioning
import SiteModel
import Wire

/// The options of `calibrate --survey`.
struct SurveyOptions {
    static let survey = Opt<String?>.text("survey", "READINGS.jsonl", help: "A site survey: readings of a tag carried or set down at known points (batches, as --input).")
    static let truth = Opt<String?>.text("truth", "TRUTH.csv", help: "Where the tag was: header t,x,y[,z][,floor], Unix seconds, metres.")
    static let rooms = Opt<String?>.text("rooms", "ROOMS.csv", help: "Which room the tag was in (teach-in): header t_start,t_end,room, Unix seconds, room ids.")
    static let device = Opt<String?>.text("device", "ID", help: "Fit from this device's readings only (default: every device heard at the survey's times).")
    static let out = Opt<String?>.text("out", "CAL.yaml", help: "Where to write the calibration (for --calibration or the site's calibration key).")
    static let table = [survey.option, truth.option, rooms.option, device.option, maxGapOption.option, out.option]

    let survey: String, truth: String?, rooms: String?, device: String?, maxGap: Double, out: String

    /// `nil` when `--survey` is not given (and none of its companions is).
    init?(_ a: Arguments) throws(UsageError) {
        let survey = try a.get(Self.survey), truth = try a.get(Self.truth), rooms = try a.get(Self.rooms), out = try a.get(Self.out)
        guard let survey else {
            if truth != nil || rooms != nil || out != nil || a.isSet("device") || a.isSet("max-gap") {
                throw UsageError("--truth, --rooms, --device, --max-gap and --out go with --survey READINGS.jsonl")
            }
            return nil
        }
        guard truth != nil || rooms != nil else {
            throw UsageError("--survey needs --truth TRUTH.csv (where the tag was when), --rooms ROOMS.csv (which room it was in when) or both")
        }
        guard let out else { throw UsageError("--survey needs --out CAL.yaml: where to write the calibration") }
        self.survey = survey; self.truth = truth; self.rooms = rooms; self.out = out
        device = try a.get(Self.device); maxGap = try a.get(maxGapOption)
    }
}

let surveyDiscussion = """
    A site survey (--survey): readings of one or more tags at known places, TRUTH.csv saying where
    they were. Between two consecutive truth rows the position is interpolated when they are at
    most --max-gap seconds apart or name the same point (a stay); readings at other times are not
    used. The engine's path-loss model (walls included) is fitted to cells of 0.5 m (a node hearing
    a device there: the median over the packets sent, those the node missed counted as fainter
    than any it heard), by least squares reweighted (Huber): the absorption, each node's rx_adj
    (from \(SurveyCalibration.minimumCells) cells or more) and each device's tx_ref.
    A common offset cannot be told from transmit power, so the rx_adj fitted average 0 and the
    tx_ref carry the level. Writes CAL.yaml (version, the fitted parameters, per node its residual
    RMS, readings and points used, per floor where the survey is thin) and prints a report. Exits 1
    when nothing can be fitted (no reading at a truth time, a device never heard, too few
    points), saying what could be.


    """

/// `calibrate --survey`: fits, writes CAL.yaml, prints the report.
func runSurveyCalibration(site sitePath: String, _ o: SurveyOptions) throws -> Int32 {
    let tool = "whereabouts calibrate"
    let site = try loadSite(path: sitePath)
    let labels = try o.rooms.map { try readRooms($0, site: site) }
    guard let truthPath = o.truth else {
        guard let labels, let (readings, badLines) = readAllReadings(o.survey, tool: tool) else { return ExitCode.failure }
        return try runTeachIn(site: site, sitePath: sitePath, readings: readings, badLines: badLines, labels: labels, o, survey: nil)
    }
    let truth = try readTruth(truthPath, site: site, maxGap: o.maxGap)
    guard let (readings, badLines) = readAllReadings(o.survey, tool: tool) else { return ExitCode.failure }
    switch SurveyCalibration.fit(readings: readings, truth: truth, site: site, device: o.device) {
    case .failure(let failure):
        printError("\(tool): \(failure)")
        return ExitCode.failure
    case .success(let fit):
        if let labels { return try runTeachIn(site: site, sitePath: sitePath, readings: readings, badLines: badLines, labels: labels, o, survey: fit) }
        let comment = ["whereabouts calibrate --survey \(o.survey) --truth \(truthPath) on \(sitePath)",
                       "fitted on the survey only: absorption, rx_adj (mean 0 over the nodes fitted), tx_ref per device"]
        do { try fit.calibrationFile(comment: comment).write(toFile: o.out, atomically: true, encoding: .utf8) }
        catch { throw ReadFailure("cannot write \(o.out): \(error.localizedDescription)") }
        print(surveyReport(fit, site: site, badLines: badLines, out: o.out), terminator: "")
        return ExitCode.success
    }
}

/// The fit in words and a table, for the terminal.
func surveyReport(_ fit: SurveyCalibration, site: Site, badLines: Int, out: String) -> String {
    func f(_ v: Double?, _ d: Int = 1) -> String { v.map { $0.isFinite ? String(format: "%.\(d)f", $0) : "-" } ?? "-" }
    var text = "wrote \(out): \(fit.used) readings used (\(fit.outside) outside the truth's spans, \(fit.faint) of them in cells where the node heard half the packets or fewer, \(fit.unknownNode) from nodes the site lacks, "
    text += "\(fit.otherDevice) of other devices or bad RSSI; \(badLines) bad lines)\n"
    text += "absorption \(f(fit.absorption, 2)) (site file: \(f(site.positioning.absorption, 2))); residual RMS \(f(fit.rms)) dB, "
    text += "\(f(fit.rmsPerNodeExponent)) dB with an exponent per node (in-sample, \(fit.nodes.count - 1) more parameters)\n"
    for floor in fit.floors where fit.floors.count > 1 || floor.cells == 0 {
        text += "floor \(floor.id): absorption \(f(floor.absorption, 2)) fitted alone, \(floor.cells) cells\n"
    }
    for d in fit.devices {
        text += "device \(d.id): tx_ref \(f(d.txRef)) dBm, \(d.readings) readings at \(d.cells) cells, RMS \(f(d.rms)) dB\n"
    }
    text += ["node", "rx_adj", "was", "readings", "points", "rms", "nearest", "farthest", "own n", "own rms"].map { $0.padding(13) }.joined() + "\n"
    for n in fit.nodes {
        let was = site.nodes.first { $0.name == n.name }?.rxAdj ?? 0
        let cells = [n.name, n.rxAdj.map { f($0) } ?? "unfitted", f(was), "\(n.readings)", "\(n.cells)", f(n.rms),
                     f(n.nearest), f(n.farthest), f(n.ownExponent, 2), f(n.ownRMS)]
        text += cells.map { $0.padding(13) }.joined() + "\n"
    }
    for floor in site.floors {
        let share = fit.thinShare[floor.id] ?? 0
        if share > 0 {
            text += "floor \(floor.id): \(Int((share * 100).rounded())) % of it is over \(f(SurveyCalibration.thinRadius, 0)) m from every "
            text += "survey point (listed under thin: in \(out)): survey there too\n"
        }
    }
    return text
}
