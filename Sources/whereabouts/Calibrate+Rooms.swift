import Foundation
import Options
import Positioning
import SiteModel
import Wire

let teachInDiscussion = """
    Teach-in (--rooms): readings of a tag carried through the rooms, ROOMS.csv saying which room it
    was in from when to when (header t_start,t_end,room; Unix seconds, the site's room ids, spans
    in time order). The readings are cut into windows of the site's positioning.window, one a
    second, as the engine smooths them; a window whose both ends ROOMS.csv puts in one room teaches
    that room: per node, the share of windows it heard the tag in and the mean and spread of its
    level (RSSI with rx_adj, less the tag's tx_ref). Rooms taught fewer than
    \(RoomTeaching.minimumWindows) windows are left out. Writes the fingerprints: section of CAL.yaml
    (with --truth too, after the survey fit, whose rx_adj and tx_ref the levels then use). A node
    that heard nothing at teach-in, or one added later, adds nothing to the fingerprints: teach
    again to use it. Exits 1 when no room could be taught.


    """

/// `calibrate --survey … --rooms`: teaches fingerprints (after `survey`'s fit, when given), writes CAL.yaml.
func runTeachIn(site: Site, sitePath: String, readings: [(node: String, reading: Reading)], badLines: Int,
                labels: RoomLabels, _ o: SurveyOptions, survey: SurveyCalibration?) throws -> Int32 {
    let tool = "whereabouts calibrate"
    let taught = survey.map { fitted(site, $0) } ?? site
    let labelled = Set(readings.lazy.filter { labels.room(at: $0.reading.t) != nil }.map(\.reading.id))
    guard let device = o.device ?? (labelled.count == 1 ? labelled.first : nil) else {
        printError("\(tool): \(labelled.count) devices were heard in the spans of \(o.rooms ?? "ROOMS.csv")"
                   + (labelled.isEmpty ? "" : " (\(labelled.sorted().prefix(5).joined(separator: ", ")))") + ": name the tag with --device")
        return ExitCode.failure
    }
    let nodes = taught.nodes.map(\.name)
    var index: [String: Int] = [:]
    for (i, name) in nodes.enumerated() where index[name] == nil { index[name] = i }
    let configured = taught.devices.first { $0.id == device }?.txRef
    var samples: [RoomTeaching.Sample] = [], unknownNode = 0
    for (node, r) in readings where r.id == device {
        guard let n = index[node] else { unknownNode += 1; continue }
        let tx = configured ?? r.tx.map(Double.init) ?? taught.positioning.txRefDefault
        samples.append(.init(t: r.t, node: n, level: Double(r.rssi) + taught.nodes[n].rxAdj - tx))
    }
    samples.sort { $0.t < $1.t }
    let set = RoomTeaching.teach(samples, nodes: nodes, labels: labels, window: taught.positioning.window)
    guard !set.rooms.isEmpty else {
        printError("\(tool): no room taught: \(device) was heard in no room of \(o.rooms ?? "ROOMS.csv") for \(RoomTeaching.minimumWindows) windows of \(taught.positioning.window) s")
        return ExitCode.failure
    }
    var comment = ["whereabouts calibrate --survey \(o.survey)" + (o.truth.map { " --truth \($0)" } ?? "") + " --rooms \(o.rooms ?? "") on \(sitePath)",
                   "fingerprints taught on \(device): per room and node, the share of windows heard and the level (dB, RSSI + rx_adj - tx_ref)"]
    let text: String
    if let survey {
        comment.insert("fitted on the survey only: absorption, rx_adj (mean 0 over the nodes fitted), tx_ref per device", at: 1)
        text = survey.calibrationFile(comment: comment) + set.calibrationSection(readings: samples.count)
    } else {
        text = set.calibrationFile(comment: comment, readings: samples.count)
    }
    do { try text.write(toFile: o.out, atomically: true, encoding: .utf8) }
    catch { throw ReadFailure("cannot write \(o.out): \(error.localizedDescription)") }
    if let survey { print(surveyReport(survey, site: site, badLines: badLines, out: o.out), terminator: "") }
    print(teachInReport(set, site: taught, device: device, samples: samples.count, unknownNode: unknownNode, badLines: badLines, out: o.out),
          terminator: "")
    return ExitCode.success
}

/// `site` with the survey fit's absorption, rx_adj and tx_ref, as the engine will have it.
private func fitted(_ site: Site, _ fit: SurveyCalibration) -> Site {
    var rxAdj: [String: Double] = [:], txRef: [String: Double] = [:]
    for n in fit.nodes { if let adj = n.rxAdj { rxAdj[n.name] = adj } }
    for d in fit.devices { txRef[d.id] = d.txRef }
    return SiteCalibration(absorption: fit.absorption, rxAdj: rxAdj, txRef: txRef).applied(to: site)
}

/// The teach-in in a table: per room the windows taught and per node the share heard and level.
func teachInReport(_ set: RoomFingerprintSet, site: Site, device: String, samples: Int, unknownNode: Int, badLines: Int, out: String) -> String {
    var text = "wrote \(out): fingerprints of \(set.rooms.count) room(s) from \(samples) readings of \(device) "
    text += "(\(unknownNode) from nodes the site lacks; \(badLines) bad lines)\n"
    let nodes = set.rooms.first?.nodes.map(\.node) ?? []
    text += (["room", "windows"] + nodes).map { $0.padding(13) }.joined() + "\n"
    for room in set.rooms {
        let cells = room.nodes.map { n in n.heard > 0 ? String(format: "%.0f%% %.0f", n.heard * 100, n.level) : "-" }
        text += ([room.room, "\(room.windows)"] + cells).map { $0.padding(13) }.joined() + "\n"
    }
    let taught = Set(set.rooms.map(\.room))
    let untaught = site.floors.flatMap(\.rooms).map(\.id).filter { !taught.contains($0) }
    if !untaught.isEmpty { text += "not taught (no or too few windows): \(untaught.joined(separator: ", "))\n" }
    let silent = site.nodes.map(\.name).filter { !nodes.contains($0) }
    if !silent.isEmpty { text += "heard nothing at teach-in, so not in the fingerprints: \(silent.joined(separator: ", "))\n" }
    return text
}
