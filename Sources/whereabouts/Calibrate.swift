import Foundation
import Options
import Positioning
import Wire
import SiteModel

struct CalibrateOptions {
    static let site = Opt<String>.required("site", "FILE", help: "The site file (YAML); nodes that advertise name their id with `beacon`.")
    static let spreadOption = Opt<Double>(.value(
        "receiver-spread", "DB", help: "How far receivers' offsets spread (SD, dB): each rx_adj is held toward 0 by it; 0 fits by plain least squares.",
        default: String(format: "%g", NodeBeaconCalibration.receiverSpread))) { a throws(UsageError) in
        try receiverSpread(a, "receiver-spread", upTo: 40)
    }
    /// The node-beacon mode's readings (`inputOption`'s text, optional here: the survey mode reads `--survey`).
    static let input = Opt<String?>.text("input", "READINGS.jsonl", help: inputOption.option.help + " Node beacons: fit from what nodes hear of each other.")
    static let table = [site.option, input.option, spreadOption.option] + SurveyOptions.table
    let site: String, input: String?, spread: Double
    let survey: SurveyOptions?
    init(_ a: Arguments) throws(UsageError) {
        site = try a.get(Self.site); input = try a.get(Self.input); spread = try a.get(Self.spreadOption)
        survey = try SurveyOptions(a)
        switch (input, survey) {
        case (nil, nil): throw UsageError("give --input READINGS.jsonl (node beacons) or --survey READINGS.jsonl --truth TRUTH.csv --out CAL.yaml")
        case (.some, .some): throw UsageError("--input (node beacons) and --survey (a site survey) are two modes: give one")
        default: break
        }
    }
}

let calibrateCommand = Command(
    name: "whereabouts calibrate",
    abstract: "fit the site's absorption, each node's rx_adj (and from a survey each device's tx_ref) from node beacons or a site survey",
    usage: ["whereabouts calibrate --site FILE --input READINGS.jsonl [--receiver-spread DB]",
            "whereabouts calibrate --site FILE --survey READINGS.jsonl [--truth TRUTH.csv] [--rooms ROOMS.csv] [--device ID] [--max-gap S] --out CAL.yaml"],
    options: CalibrateOptions.table,
    discussion: surveyDiscussion + teachInDiscussion + """
        Node beacons (--input): node j hearing node i's beacon is a reading at a known distance, with the site's walls
        between: the engine's path-loss model fits the absorption (path-loss exponent) and one
        rx_adj per node by least squares on each link's median RSSI, reweighted (Huber) so that a
        link the walls do not explain counts less. Each rx_adj is held toward 0 by a prior: receivers
        differ by about --receiver-spread dB, while a link is off by the shadowing at the sender (the
        fit estimates how much from the links' residuals), so a node hearing few links gets an
        rx_adj shrunk toward 0 by as much as its links leave in doubt. The prior's weight takes the
        links' spread from the fit without the prior. --receiver-spread is 0 (plain fit) or
        0.1 to 40 dB. An absorption outside 1 to 6 is refused, judged on the fit with the prior:
        links whose plain fit is refused may be calibrated with it, so check the absorption. The aggregator's /api/calibration always uses the default 2 dB. On the
        simulated sites (4 to 40 nodes, four seeds each) the plain fit (--receiver-spread 0) ended
        1.7 dB RMS from the true offsets on average, the fit with the prior 1.2 dB (docs/accuracy.md),
        where receivers spread 2 dB as the prior assumes: a best case. On tools/calibration, whose
        offsets spread 4 dB, both end about 1.0 dB off (plain 0.96, prior 1.01). Links heard fewer than \(NodeBeaconCalibration.minimumReadings) times, and links
        between nodes sharing no floor, are left out. Readings are taken as the nodes sent them (the
        site's current rx_adj plays no part).

        A node's rx_adj is fitted only when it heard \(NodeBeaconCalibration.minimumLinksIn) links or more (a single link
        would fit exactly, with nothing to check it): a node hearing one is reported NOT CALIBRATED and
        its rx_adj printed as the site file has it.

        Only differences between nodes' receivers show in the data, so the rx_adj fitted average 0;
        the beacons' common level is reported beside them. Devices' own tx_ref keep their meaning.

        Writes a YAML snippet to standard output, the report as its comments: paste the positioning
        and nodes entries into the site file. Exits 1 when no fit can be made (no node beacons
        configured, a node that heard no beacon, too few links), saying why; 64 on a usage error.
        """)

func runCalibrate(_ arguments: [String]) -> Int32 {
    runTool(calibrateCommand, arguments: arguments) { args in
        let o = try CalibrateOptions(args)
        if let survey = o.survey { return try runSurveyCalibration(site: o.site, survey) }
        let (sitePath, input, spread) = (o.site, o.input ?? "-", o.spread)
        let site = try loadSite(path: sitePath)
        // The engine's own ingest decides what is a node beacon, as in the aggregator; nothing is
        // solved (no `advance`), and the nearest-node locator builds no search grids.
        let engine = Engine(site: site, locator: .nearest)
        guard let badLines = readBatches(input, tool: "whereabouts calibrate", { batch, node in
            for reading in batch.readings { engine.ingest(node: node, reading: reading) }
        }) else { return ExitCode.failure }
        switch NodeBeaconCalibration.fit(site: site, links: engine.beaconLinks, receiverSpread: spread) {
        case .failure(let failure):
            printError("whereabouts calibrate: \(failure)")
            return ExitCode.failure
        case .success(let fit):
            print(calibrationReport(fit, site: site, beaconReadings: engine.beaconLinks.total, badLines: badLines, spread: spread),
                  terminator: "")
            return ExitCode.success
        }
    }
}

/// A receivers' spread option (dB): 0 for a plain fit, else 0.1 dB or more. A spread nearer 0
/// is no meaningful prior (it would pin every `rx_adj` to 0 with an overflowing weight).
func receiverSpread(_ args: Arguments, _ name: String, upTo limit: Double) throws(UsageError) -> Double {
    guard let spread = try args.double(name, in: 0...limit) else { return NodeBeaconCalibration.receiverSpread }
    guard spread == 0 || spread >= 0.1 else {
        throw UsageError("--\(name) expects 0 (no prior) or a spread in 0.1...\(limit) dB, got \(spread)")
    }
    return spread
}

/// The fit as YAML to paste, its report in comments.
func calibrationReport(_ fit: NodeBeaconCalibration, site: Site, beaconReadings: Int, badLines: Int, spread: Double) -> String {
    func signed(_ v: Double) -> String { (v >= 0 ? "+" : "") + String(format: "%.1f", v) }
    func rms(_ values: [Double]) -> String {
        values.isEmpty ? "-" : String(format: "%.1f", (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot())
    }
    var out = "# whereabouts calibrate: \(beaconReadings) node beacon readings, \(fit.links.count) links used"
    out += " (left out: \(fit.fewReadings) heard fewer than \(NodeBeaconCalibration.minimumReadings) times, "
    out += "\(fit.acrossFloors) between floors, \(fit.fewLinksIn) heard by a node hearing fewer than \(NodeBeaconCalibration.minimumLinksIn)); "
    out += "\(badLines) bad lines\n"
    out += "# absorption \(String(format: "%.2f", fit.absorption)) (site file: \(String(format: "%.2f", site.positioning.absorption)));"
    out += " beacons heard at \(signed(fit.beaconLevel)) dB of the power they announce\n"
    out += spread > 0 ? "# rx_adj held toward 0 by a prior: receivers spread \(String(format: "%g", spread)) dB (--receiver-spread), "
        + "links \(String(format: "%.1f", fit.linkSpread)) dB (the plain fit's): worth \(String(format: "%.1f", fit.priorWeight)) links a node\n"
        : "# rx_adj by plain least squares (--receiver-spread 0)\n"
    if !fit.uncalibrated.isEmpty {
        out += "# NOT CALIBRATED: \(fit.uncalibrated.joined(separator: ", ")) heard fewer than \(NodeBeaconCalibration.minimumLinksIn) links"
        out += " (one would fit exactly, unchecked): rx_adj kept as in the site file; make more nodes beacon near them\n"
    }
    out += "# residuals: measured minus fitted median RSSI per link, dB (rms); 'in' heard by the node, 'out' its beacon heard\n"
    out += "# " + ["node", "rx_adj", "was", "links in", "rms in", "links out", "rms out"].map { $0.padding(10) }.joined() + "\n"
    for node in site.nodes {
        let (inbound, outbound) = fit.links(of: node.name)
        let fitted = fit.rxAdj[node.name].map(signed) ?? "unfitted"
        let cells = [node.name, fitted, signed(node.rxAdj), "\(inbound.count)", rms(inbound.map(\.residual)),
                     "\(outbound.count)", rms(outbound.map(\.residual))]
        out += "# " + cells.map { $0.padding(10) }.joined() + "\n"
    }
    for link in fit.links where link.weight < 0.5 {
        out += "# link \(link.from) -> \(link.to) (\(String(format: "%.1f", link.distance)) m, \(String(format: "%.0f", link.walls)) dB of walls) "
        out += "is \(signed(link.residual)) dB off the model: weighed \(String(format: "%.2f", link.weight))\n"
    }
    out += "positioning:\n  absorption: \(String(format: "%.2f", fit.absorption))\n"
    out += "nodes:\n"
    for node in site.nodes {
        let p = node.point
        var entry = "  - { name: \(yamlQuoted(node.name)), point: [\(p.x), \(p.y), \(p.z)]"
        if !node.floors.isEmpty { entry += ", floors: [" + node.floors.map(yamlQuoted).joined(separator: ", ") + "]" }
        entry += ", rx_adj: \(String(format: "%.1f", fit.rxAdj[node.name] ?? node.rxAdj))"
        if let beacon = node.beacon { entry += ", beacon: \(yamlQuoted(beacon))" }
        out += entry + " }" + (fit.rxAdj[node.name] == nil ? "   # not calibrated: rx_adj as it was" : "") + "\n"
    }
    return out
}

/// A YAML double-quoted scalar (JSON's string syntax is valid YAML).
private func yamlQuoted(_ text: String) -> String {
    var writer = JSONWriter(capacity: text.utf8.count + 2)
    writer.value(text)
    return writer.string
}
